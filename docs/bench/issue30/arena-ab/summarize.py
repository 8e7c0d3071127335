import csv, glob, statistics as st, sys, collections
root = sys.argv[1] if len(sys.argv) > 1 else '.'
rows = collections.defaultdict(list)
for d in sorted(glob.glob(f'{root}/*-[0-9]*/')):
    arm = d.rstrip('/').split('/')[-1].rsplit('-', 1)[0]
    for f, key in (('topics.csv', 'topics'), ('subscribers.csv', 'subscribers')):
        try:
            for r in csv.DictReader(open(d + f)):
                k = (f"T={r['topics']}" if key == 'topics' else f"S={r['subscribers']}", r['mode'], arm)
                rows[k].append(r)
        except FileNotFoundError:
            pass
    try:
        for r in csv.DictReader(open(d + 'results.csv')):
            if r['sweep'] == 'FanOut':
                rows[(f"fan{r['subscribers']}", r['mode'], arm)].append(r)
    except FileNotFoundError:
        pass
def med(rs, c):
    v = [float(r[c]) for r in rs if r.get(c) not in (None, '')]
    return st.median(v) if v else float('nan')
print('case mode arm n | p50 p99.9 cpu rss pss thr_max | delivered')
for k in sorted(rows):
    rs = rows[k]
    if k[0].startswith('fan'):
        print(k, len(rs), '| p50 %.0f p99.9 %.0f pubcpu %.0f subcpu %.0f pubrss %.1f subrss %.1f lost %d' % (
            med(rs, 'p50_us'), med(rs, 'p999_us'), med(rs, 'pub_cpu_us_per_msg'), med(rs, 'sub_cpu_us_per_msg'),
            med(rs, 'pub_peak_rss_mib'), med(rs, 'sub_peak_rss_mib'), sum(int(r['lost']) for r in rs)))
    else:
        print(k, len(rs), '| p50 %.1f p99.9 %.0f cpu %.3f rss %.1f pss %.1f thr %s | %d/%d' % (
            med(rs, 'p50_us'), med(rs, 'p999_us'), med(rs, 'nodes_cpu_cores'), med(rs, 'rss_mib_max'),
            med(rs, 'pss_mib_max'), ','.join(r['threads_max'] for r in rs),
            sum(int(r['delivered']) for r in rs), sum(int(r['expected']) for r in rs)))
