#!/bin/sh
# Installs the `tools` component into a scratch prefix and checks what a user
# gets from it: `man -l` renders vktune(1) with every subcommand and the exit
# codes, and the bash completion, sourced into a fresh bash, completes
# subcommands, kernel names, options and option values from the installed
# vktune.
#   man_completion_test.sh CMAKE BUILD_DIR WORK_DIR
set -eu
cmake=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" --component tools >"$work/install.log"

page="$work/prefix/share/man/man1/vktune.1"
completion="$work/prefix/share/bash-completion/completions/vktune"
test -f "$page" || { echo "no man page at $page"; exit 1; }
test -f "$completion" || { echo "no bash completion at $completion"; exit 1; }

# The rendered page as plain text (man-db drops bold and underline when its
# output is not a terminal).
MANWIDTH=100 man -l "$page" >"$work/man.txt" 2>"$work/man.err" || { cat "$work/man.err"; exit 1; }
# Each command's options are there too (from its --help), with their choices.
for word in NAME SYNOPSIS "EXIT STATUS" COMMANDS devices list check export import replay bench gguf matmul_q4k \
    "--version" "mesa-vulkan-drivers" "vktune check" "--variants" "{covering,all,winners,sample:N}" \
    "vktune KERNEL" "{anneal,exhaustive,model,random}" "--dequant"; do
  grep -qF -- "$word" "$work/man.txt" || { echo "man page lacks '$word'"; cat "$work/man.txt"; exit 1; }
done

# COMPREPLY for a command line, one word a line, sorted. The installed
# vktune must be the one on PATH: the completion runs it.
cat >"$work/complete.bash" <<'SCRIPT'
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_vktune
printf '%s\n' "${COMPREPLY[@]}" | sort
SCRIPT
complete_line() {
  PATH="$work/prefix/bin:$PATH" bash --norc --noprofile "$work/complete.bash" "$completion" "$@"
}
expect() {  # expect "WANTED LINES" WORDS...: the completions are exactly these
  wanted=$1
  shift
  got=$(complete_line "$@")
  if [ "$got" != "$wanted" ]; then
    echo "completing '$*': expected"
    echo "$wanted"
    echo "got"
    echo "$got"
    exit 1
  fi
}

# vktune mat<TAB>: the matmul kernels, as the installed vktune lists them.
matmuls=$("$work/prefix/bin/vktune" list --names | grep '^mat' | sort)
test "$(echo "$matmuls" | wc -l)" -ge 4 || { echo "too few matmul kernels: $matmuls"; exit 1; }
expect "$matmuls" vktune mat
expect "devices" vktune dev
expect "--strategy" vktune matmul_q4k --str
expect "--variants" vktune check --var
expect "--space" vktune matmul_q4k --sp
expect "cold
hot" vktune matmul_q4k --cache ""
expect "anneal" vktune replay --strategy a
expect "ci
default" vktune check --shapes ""
expect "--version" vktune --vers
echo "man page and completion: ok"
