import csv, sys, lzma, json, itertools, statistics
def load(p):
    f = lzma.open(p,'rt') if p.endswith('.xz') else open(p)
    rows = {}
    for r in csv.DictReader(f):
        if r['status']!='ok' or not r['median_ns']: continue
        rows[(r['shape'], r['config'])] = float(r['median_ns'])
    return rows
sets = sys.argv[1:]
data = {p: load(p) for p in sets}
for a, b in itertools.combinations(sets, 2):
    A, B = data[a], data[b]
    common = set(A) & set(B)
    if not common: continue
    ratios = sorted(B[k]/A[k] for k in common)
    bestA = min(common, key=lambda k: A[k]); bestB = min(common, key=lambda k: B[k])
    rankA_in_B = sorted(common, key=lambda k: B[k]).index(bestA)+1
    rankB_in_A = sorted(common, key=lambda k: A[k]).index(bestB)+1
    within_A = {k for k in common if A[k] <= 1.01*A[bestA]}
    within_B = {k for k in common if B[k] <= 1.01*B[bestB]}
    # ratio of each set's best to the other's time
    print(f"{a.split('nvidia-h200/')[1]} vs {b.split('nvidia-h200/')[1]}: {len(common)} common, median ratio B/A {statistics.median(ratios):.4f}, "
          f"p10 {ratios[len(ratios)//10]:.4f} p90 {ratios[9*len(ratios)//10]:.4f}; A's best ranks {rankA_in_B} in B ({B[bestA]/B[bestB]:.4f} of B's best), "
          f"B's best ranks {rankB_in_A} in A ({A[bestB]/A[bestA]:.4f}); within 1%: A {len(within_A)} B {len(within_B)} both {len(within_A&within_B)}")
