#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails (exit 1, printing each offender as file:line:text) when a comment or document cites a
# paper by its seed number ("seed 003 §III", "(000 §2.2)", "002 Alg. 3", "004 Listing 2",
# "seed 002's") instead of by title (docs/DESIGN.md, "Where knowledge lives"). A seed file named
# as a path beside a title is fine: "seeds/003_e4cd5c14f376e185.txt" or "seeds/000_*.txt".
# Usage: .ci/check_citations.sh [path...]   (default: the whole tracked tree)
set -euo pipefail
cd "$(dirname "$0")/.."

# Sources, build files and documents: data files (graphs, fuzz corpora, fixtures) hold numbers
# such as "004" legitimately.
pathspec=("${@:-.}")
exclude=(':!*.mtx' ':!*.csv' ':!*.tsv' ':!*.npy' ':!tests/fuzz/corpus' ':!tests/fuzz/regressions'
         ':!tests/fixtures' ':!.ci/check_citations.sh')

# A seed number is 000-099 standing alone: not part of a longer number, a hex literal, a quoted
# string ("007") or a file name (seeds/003_...): no letter, digit, quote, dot, comma, _, / or -
# right before it, nor right after it.
num="(?<![0-9A-Za-z'\".,_/-])0[0-9]{2}(?![0-9A-Za-z_.,'\"/-])"
patterns=(
  # "seed 003", "seeds 000/002", "seed 002's" (any seed number after the word seed)
  "\\bseeds? ?0[0-9]{2}(?![0-9_])"
  # "003 §III", "000 ref [10]", "002 Alg. 3", "004 Listing 2", "000 Fig. 4", "003 Insight 1",
  # "001 \"gbmv_s\"", "004: \"reordering", "002's"
  "${num}(?:'s)? ?(?:§|Alg\\.?|Algorithm|ref\\.? ?\\[|Listing|Fig\\.?|Figure|Table|Insight|Sec\\.?|Section|\"|:)"
  # "(000 §...", "(003)", "(004;" and "; 002 ..." inside a parenthesised citation list
  "[(;] ?${num}(?: |\\)|;|,)"
)

found=""
for p in "${patterns[@]}"; do
  if out=$(git grep --untracked -nP "$p" -- "${pathspec[@]}" "${exclude[@]}"); then
    # A seed file path on the same line is a citation by file, allowed beside a title.
    found+=$(printf '%s\n' "$out" | grep -vE 'seeds/0[0-9]{2}_' || true)$'\n'
  fi
done
offenders=$(printf '%s' "$found" | sed '/^$/d' | sort -t: -k1,1 -k2,2n -u)

status=0
if [[ -n "$offenders" ]]; then
  printf '%s\n' "$offenders"
  status=1
fi

if [[ $status -ne 0 ]]; then
  echo "check_citations: cite papers by title (e.g. \"Load-balancing SpMV Kernels on GPUs, Anzt" \
       "et al., Alg. 3\"), not by seed number; see docs/design/*.md for the titles" >&2
else
  echo "check_citations: no seed-number citations"
fi
exit $status
