#!/usr/bin/env bash
# The median over rounds of write-cost.sh's lines (its output on stdin): seconds for 10,000
# transactions and mean latency, per commit mode, case and clients.
awk '/ client\(s\): / {
        key = $1 " " $2 " " $3; sub(/client\(s\):/, "", key)
        s[key] = s[key] " " $(NF-3); l[key] = l[key] " " $(NF-7); if (!(key in seen)) { seen[key] = 1; order[++n] = key }
     }
     function median(list,   a, m, i, j, t) {
        m = split(list, a, " ")
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return a[int((m + 1) / 2)]
     }
     END { for (i = 1; i <= n; i++) printf "%-40s %7.2f s for 10,000  %7.3f ms mean latency\n", order[i], median(s[order[i]]), median(l[order[i]]) }'
