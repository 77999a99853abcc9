#!/usr/bin/env python3
"""What a Prometheus holds after shb's prom reporter pushed a run to it,
read back through its HTTP API (/api/v1/query) and compared with the JSON
report of the same run. Used by tests/e2e/prom.sh.

  prom_check.py ready URL             until Prometheus answers /-/ready
  prom_check.py compare URL RUN JSON PUSHES  every series of run_id RUN
                                      against JSON, PUSHES samples of each
  prom_check.py shards URL RUN JSON...  the shards' sum in one query
  prom_check.py dashboard URL RUN TARGET DASHBOARD  every PromQL expression
                                      of a Grafana dashboard returns data
  prom_check.py count URL QUERY N     QUERY returns exactly N series

Exits 1 on the first difference, naming it; prints what it compared."""
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hdr_check  # noqa: E402  the JSON histogram's own decoder

# The reporter's bucket bounds in ns (plugins/reporters/prom/prom_series.c).
LE_NS = [m * 10 ** e for e in range(3, 10) for m in (1, 1.5, 2, 3, 5, 7)]
LE_NS = [int(v) for v in LE_NS] + [10 ** 10, 15 * 10 ** 9, 2 * 10 ** 10,
                                   3 * 10 ** 10, 6 * 10 ** 10]
KINDS = ['connect', 'tls', 'read', 'write', 'timeout', 'protocol',
         'application', 'script']
COUNTERS = ['shb_requests_total', 'shb_requests_retried_total',
            'shb_requests_answered_total', 'shb_errors_total',
            'shb_responses_total', 'shb_sent_bytes_total',
            'shb_received_bytes_total', 'shb_connections_opened_total',
            'shb_request_duration_seconds_bucket',
            'shb_request_duration_seconds_sum',
            'shb_request_duration_seconds_count']
BAD = []


def le_label(ns):
    whole, frac = divmod(ns, 10 ** 9)
    frac = f'{frac:09d}'.rstrip('0')
    return f'{whole}.{frac}' if frac else f'{whole}'


# The instant queries are evaluated at: now, or for the dashboard the
# run's last push (rate() windows then hold the run's pushes).
AT = {}


def query(url, q):
    u = url + '/api/v1/query?' + urllib.parse.urlencode(dict(query=q, **AT))
    try:
        with urllib.request.urlopen(u, timeout=10) as r:
            d = json.load(r)
    except urllib.error.HTTPError as e:
        raise SystemExit(f'query {q}: {e.code} {e.read()[:300]!r}')
    if d.get('status') != 'success':
        raise SystemExit(f'query {q}: {d}')
    return d['data']['result']


def one(url, q):
    res = query(url, q)
    if len(res) != 1:
        BAD.append(q)
        print(f'{q}: {len(res)} series, expected 1')
        return None
    return float(res[0]['value'][1])


def same(what, got, want, tol=0.0):
    ok = got is not None and abs(got - want) <= tol
    print(f'{what}: {got} (want {want}{f" +- {tol}" if tol else ""})')
    if not ok:
        BAD.append(what)


def by_label(url, q, label):
    return {s['metric'][label]: float(s['value'][1]) for s in query(url, q)}


def ready(url):
    for _ in range(300):
        try:
            with urllib.request.urlopen(url + '/-/ready', timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit('prometheus did not become ready in 30 s')


def buckets_want(doc):
    counts = hdr_check.decode(doc['latencyHistogram'])
    per = [0] * (len(LE_NS) + 1)
    for i, n in counts.items():
        hi = hdr_check.bounds(i)[1]
        per[next((k for k, b in enumerate(LE_NS) if b >= hi), len(LE_NS))] += n
    want, cum = {}, 0
    for k, b in enumerate(LE_NS):
        cum += per[k]
        want[le_label(b)] = cum
    want['+Inf'] = cum + per[-1]
    return want


def quantile(url, sel, doc, label):
    v = round(doc['latencySeconds']['percentiles'][label] * 1e9)
    k = next((k for k, b in enumerate(LE_NS) if b >= v), None)
    q = one(url, f'histogram_quantile({int(label[1:]) / 100}, '
                 f'shb_request_duration_seconds_bucket{sel})')
    lo = LE_NS[k - 1] / 1e9 if k else 0.0
    hi = LE_NS[k] / 1e9
    print(f'{label}: JSON {v / 1e9} in bucket ({lo}, {hi}]; '
          f'histogram_quantile {q}')
    if q is None or not lo <= q <= hi:
        BAD.append(f'histogram_quantile {label}')


def compare(url, run, path, pushes):
    doc = json.load(open(path))
    sel = f'{{run_id="{run}"}}'
    s = f'run_id="{run}"'
    req = doc['requests']
    same('requests ok', one(url, f'shb_requests_total{{{s},result="ok"}}'), req['ok'])
    same('requests error',
         one(url, f'shb_requests_total{{{s},result="error"}}'), req['errors'])
    same('retried', one(url, f'shb_requests_retried_total{sel}'), req['retried'])
    same('answered', one(url, f'shb_requests_answered_total{sel}'), req['answered'])
    got = by_label(url, f'shb_errors_total{sel}', 'kind')
    for k in KINDS:
        same(f'errors {k}', got.get(k), doc['errors'][k])
    same('error kinds', len(got), len(KINDS))
    got = by_label(url, f'shb_responses_total{sel}', 'status')
    want = {c: float(n) for c, n in doc['statusCodes'].items()}
    same('statuses equal', got == want, True)
    print(f'  statuses {got}')
    same('bytes sent', one(url, f'shb_sent_bytes_total{sel}'), doc['bytesSent'])
    same('bytes received', one(url, f'shb_received_bytes_total{sel}'),
         doc['bytesReceived'])
    same('connections opened', one(url, f'shb_connections_opened_total{sel}'),
         doc['connectionsOpened'])
    same('elapsed', one(url, f'shb_elapsed_seconds{sel}'),
         doc['durationSeconds'], 1e-9)
    same('finished', one(url, f'shb_run_finished{sel}'), 1)
    ok = req['ok']
    same('latency count', one(url, f'shb_request_duration_seconds_count{sel}'), ok)
    if ok:
        mean = doc['latencySeconds']['mean']
        same('latency sum', one(url, f'shb_request_duration_seconds_sum{sel}'),
             mean * ok, ok * 1e-9 + 1e-9)
        got = by_label(url, f'shb_request_duration_seconds_bucket{sel}', 'le')
        want = buckets_want(doc)
        for le in want:
            if got.get(le) != want[le]:
                same(f'bucket le={le}', got.get(le), want[le])
        same('buckets', len(got), len(want))
        same('every bucket as the JSON histogram gives it',
             all(got.get(k) == v for k, v in want.items()), True)
        quantile(url, sel, doc, 'p50')
        quantile(url, sel, doc, 'p99')
    # counters never went down between pushes (rate() would see a reset)
    for name in COUNTERS:
        same(f'resets of {name}',
             one(url, f'sum(resets({name}{sel}[10m])) or vector(0)'), 0)
    same('pushes of the run', one(url, f'count_over_time('
                                       f'shb_run_finished{sel}[10m])'), pushes)
    if 'intervals' in doc:
        same('pushes: one per interval and the final one', pushes,
             len(doc['intervals']) + 1)


def shards(url, run, paths):
    docs = [json.load(open(p)) for p in paths]
    s = f'run_id="{run}"'
    same('shards', len(query(url, f'shb_run_finished{{{s}}}')), len(docs))
    same('sum of ok over shards',
         one(url, f'sum(shb_requests_total{{{s},result="ok"}})'),
         sum(d['requests']['ok'] for d in docs))
    same('sum of bytes received over shards',
         one(url, f'sum(shb_received_bytes_total{{{s}}})'),
         sum(d['bytesReceived'] for d in docs))
    same('latency count over shards',
         one(url, f'sum(shb_request_duration_seconds_count{{{s}}})'),
         sum(d['requests']['ok'] for d in docs))


def exprs(node, out):
    """Every "expr" of the dashboard: panels' targets, nested rows."""
    if isinstance(node, dict):
        if isinstance(node.get('expr'), str) and node['expr']:
            out.append(node['expr'])
        for v in node.values():
            exprs(v, out)
    elif isinstance(node, list):
        for v in node:
            exprs(v, out)
    return out


def dashboard(url, run, target, path):
    dash = json.load(open(path))
    found = exprs(dash.get('panels', []), [])
    values = {'run': run, 'target': target, 'shard': '.*',
              '__rate_interval': '1m', '__interval': '1s'}
    last = query(url, f'shb_run_finished{{run_id="{run}"}}')
    same('runs of that id', len(last), 1)
    AT['time'] = last[0]['value'][0]
    same('expressions found', len(found) >= 4, True)
    for e in found:
        q = re.sub(r'\$\{?(\w+)(?::\w+)?\}?',
                   lambda m: values.get(m.group(1), m.group(0)), e)
        if '$' in q:
            BAD.append(f'unknown variable in {e}')
        res = query(url, q)
        print(f'{q}: {len(res)} series')
        if not res:
            BAD.append(q)
    # the variables' label_values(SELECTOR, LABEL), as the series they list
    for v in dash['templating']['list']:
        m = re.fullmatch(r'label_values\((.*), (\w+)\)', v.get('definition', ''))
        if v['type'] != 'query':
            continue
        if not m:
            BAD.append(f'variable {v["name"]}: not label_values(SELECTOR, LABEL)')
            continue
        sel = m.group(1).replace('$run', run)
        got = by_label(url, f'count by ({m.group(2)}) ({sel})', m.group(2))
        print(f'variable {v["name"]}: {sorted(got)}')
        if not got:
            BAD.append(f'variable {v["name"]}')


def main():
    cmd, url = sys.argv[1], sys.argv[2].rstrip('/')
    if cmd == 'ready':
        ready(url)
        return
    if cmd == 'compare':
        compare(url, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif cmd == 'shards':
        shards(url, sys.argv[3], sys.argv[4:])
    elif cmd == 'dashboard':
        dashboard(url, sys.argv[3], sys.argv[4], sys.argv[5])
    elif cmd == 'count':
        same(sys.argv[3], len(query(url, sys.argv[3])), int(sys.argv[4]))
    else:
        raise SystemExit(f'unknown command {cmd}')
    if BAD:
        print('differ: ' + '; '.join(BAD))
        sys.exit(1)


if __name__ == '__main__':
    main()
