/* The configuration's end: everything shb_cli_parse (cli.c) allocated
 * into it, freed, whether the parse succeeded or not. */
#include "cli/config.h"
#include "cli/plugin_opts.h"
#include "cli/source.h"

#include <stdlib.h>
#include <string.h>

void shb_config_free(struct shb_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->url_text);
	shb_url_free(&cfg->url);
	for (size_t i = 0; cfg->targets && i < cfg->target_count; i++) {
		free(cfg->targets[i].label);
		free(cfg->targets[i].url_text);
		free(cfg->targets[i].method);
		free(cfg->targets[i].body_file);
		free(cfg->targets[i].body);
	}
	free(cfg->targets);
	free(cfg->urls_file);
	free(cfg->proto);
	for (size_t i = 0; cfg->proto_opts && i < cfg->proto_opt_count; i++)
		shb_plugin_opt_free(&cfg->proto_opts[i]);
	free(cfg->proto_opts);
	for (size_t i = 0; cfg->report_opts && i < cfg->report_opt_count; i++)
		shb_plugin_opt_free(&cfg->report_opts[i]);
	free(cfg->report_opts);
	for (size_t i = 0; cfg->reports && i < cfg->report_count; i++) {
		free(cfg->reports[i].name);
		free(cfg->reports[i].path);
	}
	free(cfg->reports);
	free(cfg->method);
	for (size_t i = 0; cfg->headers && i < cfg->header_count; i++) {
		free(cfg->headers[i].name);
		free(cfg->headers[i].value);
	}
	free(cfg->headers);
	free(cfg->host_header);
	free(cfg->body);
	for (size_t i = 0; cfg->plugin_dirs && i < cfg->plugin_dir_count; i++)
		free(cfg->plugin_dirs[i]);
	free(cfg->plugin_dirs);
	free(cfg->cacert);
	free(cfg->sni);
	free(cfg->cert);
	free(cfg->key);
	free(cfg->ciphers);
	free(cfg->body_lines);
	free(cfg->unix_socket);
	free(cfg->proxy);
	free(cfg->noproxy);
	free(cfg->priority);
	shb_source_free(cfg->source);
	for (size_t i = 0; cfg->connect_to && i < cfg->connect_to_count; i++)
		shb_connect_to_free(&cfg->connect_to[i]);
	free(cfg->connect_to);
	for (size_t i = 0; cfg->resolve && i < cfg->resolve_count; i++)
		shb_resolve_free(&cfg->resolve[i]);
	free(cfg->resolve);
	free(cfg->slos);
	free(cfg->stages);
	shb_typed_free(&cfg->typed);
	free(cfg->script);
	for (size_t i = 0; i < cfg->script_arg_count; i++)
		free(cfg->script_args[i]);
	free(cfg->script_args);
	memset(cfg, 0, sizeof(*cfg));
}
