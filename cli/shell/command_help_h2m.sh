#!/bin/sh
# Writes a help2man include file with a COMMANDS section: each built-in
# command's --help and one kernel's (every kernel takes the same options), as
# the built vktune prints them, so the man page documents every option
# without a second copy that could drift.
#   command_help_h2m.sh VKTUNE OUTPUT
set -eu
vktune=$1 output=$2
# roff: a backslash is written \e, and a line starting with . or ' would be
# read as a request, so it gets a zero-width \& in front.
escape() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
section() {  # section TITLE ARGS...: the help of `vktune ARGS... --help`
  title=$1
  shift
  printf '.SS "%s"\n.nf\n' "$title"
  "$vktune" "$@" --help | sed -e "s|^Usage: [^ ]*vktune|Usage: vktune|" | escape
  printf '.fi\n'
}
{
  printf '[COMMANDS]\n'
  # The commands are the subcommands in vktune's help that are not kernels.
  "$vktune" list --names >"$output.kernels"
  for command in $("$vktune" --help | sed -n '/^Subcommands:/,$p' | grep -oE '^  [A-Za-z0-9_]+'); do
    grep -qxF "$command" "$output.kernels" || section "vktune $command" "$command"
  done
  rm -f "$output.kernels"
  section "vktune KERNEL (shown for matmul_q4k; every kernel takes these options)" matmul_q4k
} >"$output.partial"
mv "$output.partial" "$output"
