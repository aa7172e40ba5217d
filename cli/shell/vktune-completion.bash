# bash completion for vktune: subcommands and kernel names, each
# subcommand's options, and the choices of enumerated options. Everything is
# read from vktune itself (`vktune --help`, `vktune list --names`,
# `vktune CMD --help`), so the completion never lists a command, option or
# kernel this build does not have, nor misses one it has.

# Every subcommand (commands and kernels) as vktune $1 lists them in its help.
_vktune_subcommands() {
  "$1" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | grep -oE '^  [A-Za-z0-9_]+' | tr -d ' '
}

# The options of subcommand $2 as vktune $1 prints them in its help.
_vktune_options() {
  "$1" "$2" --help 2>/dev/null | grep -E -- '^ +-' | sed -E 's/^ +//; s/[ =].*//' | tr ',' '\n' | grep -E -- '^--?[A-Za-z]'
}

# The choices of option $3 of subcommand $2, from the {a,b,c} CLI11 prints
# beside an option with a fixed set of values.
_vktune_choices() {
  "$1" "$2" --help 2>/dev/null | grep -E -- "^ +(-[A-Za-z],)?$3( |,|$)" | grep -oE '\{[^}]*\}' | head -n 1 |
    tr -d '{}' | tr ',' '\n' | grep -v ':N$'
}

_vktune() {
  local vktune="${COMP_WORDS[0]}" cur="${COMP_WORDS[COMP_CWORD]}" prev=""
  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    local commands
    commands="$(_vktune_subcommands "$vktune")"
    if [[ "$cur" == -* ]]; then commands="--help --version"; fi
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
    return 0
  fi
  local command="${COMP_WORDS[1]}"
  case "$prev" in
    --db | --from | --table | -o | --output)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return 0
      ;;
    --templates)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return 0
      ;;
    --kernel)
      mapfile -t COMPREPLY < <(compgen -W "$("$vktune" list --names 2>/dev/null)" -- "$cur")
      return 0
      ;;
    -*)
      local choices
      choices="$(_vktune_choices "$vktune" "$command" "$prev")"
      if [[ -n "$choices" ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
        return 0
      fi
      ;;
  esac
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_vktune_options "$vktune" "$command")" -- "$cur")
    return 0
  fi
  case "$command" in
    list | check | bench | replay)  # these take kernel names
      mapfile -t COMPREPLY < <(compgen -W "$("$vktune" list --names 2>/dev/null)" -- "$cur")
      ;;
    gguf | import)  # these take a file
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      ;;
  esac
  return 0
}

complete -o default -F _vktune vktune
