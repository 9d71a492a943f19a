"""Generates the datetime-literal filter fixture: records.npy (datetime64
fields of several units, with NaT) and cases.json (filter predicates with
ISO string literals and the rows numpy keeps for each).

Run with Debian's numpy: /usr/bin/python3 gen.py
"""
import json

import numpy as np

dt = np.dtype([('s', '<M8[s]'), ('d', '<M8[D]'), ('ms10', '<M8[10ms]'),
               ('mo', '<M8[M]'), ('w', '<M8[W]'), ('ns', '>M8[ns]'), ('y', '<M8[Y]')])
stamps = ['1969-12-31T23:59:59', '1970-01-01T00:00:00', '2024-02-29T12:30:00',
          '2024-02-29T00:00:00', '2024-03-01T00:00:00', 'NaT', '1900-06-15T06:00:00',
          '2024-02-29T12:30:00.25']
a = np.zeros(len(stamps), dt)
for name in dt.names:
    a[name] = np.array(stamps, 'M8[ms]').astype(dt[name])  # NaT stays NaT
np.save('records.npy', a)

ops = {'<': np.less, '<=': np.less_equal, '>': np.greater, '>=': np.greater_equal,
       '==': np.equal, '!=': np.not_equal}
lits = ['2024-02-29', '2024-02-29T12:30', '2024-02-29T12:30:00.25', '2024-03',
        '2024', '1970-01-01T00:00:00.000000001', '1969-12-31T23:59:59.5',
        '1900-06-15T06']
cases = []
for field in dt.names:
    for lit in lits:
        for op, f in ops.items():
            mask = f(a[field], np.datetime64(lit))
            cases.append({'where': "%s %s '%s'" % (field, op, lit), 'rows': np.flatnonzero(mask).tolist()})
    # literal first, chains and lists
    lo, hi = '1970-01-01', '2024-02-29T12:30:00.1'
    m = (np.datetime64(lo) <= a[field]) & (a[field] < np.datetime64(hi))
    cases.append({'where': "'%s' <= %s < '%s'" % (lo, field, hi), 'rows': np.flatnonzero(m).tolist()})
    m = np.zeros(len(a), bool)
    for lit in ['2024-02-29', '1970-01-01T00:00:00.5']:
        m |= a[field] == np.datetime64(lit)
    cases.append({'where': "%s in ['2024-02-29', '1970-01-01T00:00:00.5']" % field, 'rows': np.flatnonzero(m).tolist()})
    cases.append({'where': "%s not in ['2024-02-29', '1970-01-01T00:00:00.5']" % field,
                  'rows': np.flatnonzero(~m).tolist()})
with open('cases.json', 'w') as fh:
    json.dump({'numpy': np.__version__, 'cases': cases}, fh, indent=0)
    fh.write('\n')
