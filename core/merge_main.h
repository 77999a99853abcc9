/* `shb merge`: reports of several runs (machines, shards) as one.
 * [main] thread. */
#ifndef SHB_CORE_MERGE_MAIN_H
#define SHB_CORE_MERGE_MAIN_H

/* The command: argv[0] is "merge". Returns the exit status. */
int shb_merge_main(int argc, char **argv);

#endif
