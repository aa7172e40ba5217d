#!/usr/bin/env bash
# Usage: bash summarize.sh DIR/*.json  (the columns of SUMMARY.txt)
# prints tag, evaluated, failed, /s, winner us, search wall, compile_wait, proposal
for f in "$@"; do t=$(basename $f .json)
ev=$(grep -m1 '"evaluated"' $f | tr -dc 0-9); fl=$(grep -m1 '"failures"' $f | tr -dc 0-9)
vps=$(grep -m1 "\"variants_per_second\"" $f | grep -o "[0-9.]*,\?$" | tr -d ,)
win=$(awk '/^      "winner": \{/{w=1} w&&/"median_ns"/{gsub(/[^0-9.]/,"");print $0/1000;exit}' $f)
cw=$(grep -m1 compile_wait_seconds $f | grep -o '[0-9.]*,' | tr -d ,); pr=$(grep -m1 proposal_seconds $f | grep -o '[0-9.]*,' | tr -d ,)
sw=$(grep -m1 '"search_seconds"' $f | grep -o '[0-9.]*,' | tr -d ,)
printf "%-18s %5s %3s %6.2f %9.2f %6.1f %6.1f %5.1f\n" $t $ev $fl $vps $win $sw $cw $pr; done
