import csv, glob, statistics as st, sys, collections
# Per run, the lane / iceoryx2 ratio of the nodes' CPU and of p99.9, then the median over runs, per arm.
out = collections.defaultdict(list)
for root in sys.argv[1:]:
    for d in sorted(glob.glob(f'{root}/*-[0-9]*/')):
        arm = d.rstrip('/').split('/')[-1].rsplit('-', 1)[0]
        for f, col in (('topics.csv', 'topics'), ('subscribers.csv', 'subscribers')):
            by = collections.defaultdict(dict)
            for r in csv.DictReader(open(d + f)):
                by[f"{col[0].upper()}={r[col]}"][r['mode']] = r
            for case, m in by.items():
                l, i = m['lane'], m['iceoryx2']
                out[(case, arm)].append((float(l['nodes_cpu_cores']) / float(i['nodes_cpu_cores']),
                                         float(l['p999_us']) / float(i['p999_us']),
                                         float(l['nodes_cpu_cores']), float(l['p50_us'])))
for k in sorted(out):
    v = out[k]
    print(k, len(v), 'cpu ratio %.2f (%.2f-%.2f)  p99.9 ratio %.2f (%.2f-%.2f)  lane cpu %.3f  lane p50 %.1f' % (
        st.median(x[0] for x in v), min(x[0] for x in v), max(x[0] for x in v),
        st.median(x[1] for x in v), min(x[1] for x in v), max(x[1] for x in v),
        st.median(x[2] for x in v), st.median(x[3] for x in v)))
