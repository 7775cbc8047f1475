# bash completion for displace(1)                              -*- shell-script -*-
#
# Installed as share/bash-completion/completions/displace (make install, the
# Debian package). It asks the binary being completed for everything it
# offers, so nothing here goes stale: the commands from 'displace --help',
# each command's options from its --help (an option line starts with two
# spaces and its names; an upper-case word after a name means it takes a
# value), the workloads and their options from 'displace workloads', and the
# CPUs from /sys/devices/system/cpu/online. tests/completion.sh checks it
# against the binary. It needs no bash-completion helpers.

# _displace_cpus - the online CPUs, one per line
_displace_cpus()
{
    local online r lo hi c
    online=$(cat /sys/devices/system/cpu/online 2>/dev/null) || online=0
    local IFS=,
    for r in $online; do
        lo=${r%-*} hi=${r#*-}
        for ((c = lo; c <= hi; c++)); do
            echo "$c"
        done
    done
}

# _displace_opts BIN CMD - CMD's options, one per line: "--name" or "--name=" when it takes a value
_displace_opts()
{
    "$1" "$2" --help 2>/dev/null | awk '
        /^  (-h, )?--[a-z]/ {
            spec = $0
            sub(/^  (-h, )?/, "", spec)
            sub(/   *[^ ].*$/, "", spec)   # the names end where two spaces begin the text
            n = split(spec, item, /, /)
            for (i = 1; i <= n; i++) {
                if (item[i] !~ /^--[a-z]/)
                    continue
                name = item[i]
                sub(/ .*/, "", name)
                print name (item[i] ~ /^--[a-z0-9-]+ [A-Z]/ ? "=" : "")
            }
        }'
}

# _displace_workloads BIN - the workloads, one per line
_displace_workloads()
{
    "$1" workloads 2>/dev/null | awk '/^[a-z]/ { print $1 }'
}

# _displace_workload_opts BIN WORKLOAD - the workload's options, as _displace_opts
_displace_workload_opts()
{
    "$1" workloads 2>/dev/null | awk -v w="$2" '
        /^[a-z]/ { cur = $1; next }
        cur == w && /^  --[a-z]/ {
            name = $1
            print name ($2 ~ /^[A-Z]/ ? "=" : "")
        }'
}

_displace()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local bin=${COMP_WORDS[0]} cmd='' workload='' after_dashdash=-1 i w opts
    COMPREPLY=()
    command -v "$bin" >/dev/null 2>&1 || return 0

    # the value of --opt=value: bash splits the word at '='
    if [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]} cur=
    fi

    # the command, the workload, and where '--' (exec's command) is
    local cmdopts='' wopts=''
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == -- ]]; then
            after_dashdash=$((COMP_CWORD - i))
            break
        fi
        if [[ ${COMP_WORDS[i + 1]} == = ]]; then
            ((i += 2)) # --option=value
            continue
        fi
        if [[ -z $cmd ]]; then
            if [[ $w != -* ]]; then
                cmd=$w
                cmdopts=$(_displace_opts "$bin" "$cmd")
            fi
        elif [[ $w == --* ]]; then
            # an option whose value is the next word: skip that
            [[ $'\n'$cmdopts$'\n'$wopts$'\n' == *$'\n'$w=$'\n'* ]] && ((i++))
        elif [[ -z $workload && $cmd =~ ^(measure|sweep|predict)$ ]]; then
            workload=$w
            wopts=$(_displace_workload_opts "$bin" "$workload")
        fi
    done
    opts=$(printf '%s\n%s\n' "$cmdopts" "$wopts" | sort -u)

    # exec's command, then its arguments
    if ((after_dashdash == 1)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
        return 0
    elif ((after_dashdash > 1)); then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        compopt -o filenames 2>/dev/null
        return 0
    fi

    # an option's value
    case $prev in
    --cpu | --peer-cpu)
        mapfile -t COMPREPLY < <(compgen -W "$(_displace_cpus) $([[ $prev == --peer-cpu ]] && echo same)" -- "$cur")
        return 0
        ;;
    --cpus)
        # a list: offer each CPU not yet in it after the last comma, and 'all'
        local head='' c
        [[ $cur == *,* ]] && head=${cur%,*},
        local words=''
        for c in $(_displace_cpus); do
            [[ ,$head == *,$c,* ]] || words+=" $head$c"
        done
        [[ -z $head ]] && words+=" all"
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    --fluid-sched)
        mapfile -t COMPREPLY < <(compgen -W "idle nice normal" -- "$cur")
        return 0
        ;;
    --method)
        mapfile -t COMPREPLY < <(compgen -W "beilner chan danzig" -- "$cur")
        return 0
        ;;
    --estimator)
        mapfile -t COMPREPLY < <(compgen -W "off-cpu classic drift-robust" -- "$cur")
        return 0
        ;;
    --stopping)
        mapfile -t COMPREPLY < <(compgen -W "three-stage stein naive" -- "$cur")
        return 0
        ;;
    --precision-of)
        mapfile -t COMPREPLY < <(compgen -W "result normalised these-ops" -- "$cur")
        return 0
        ;;
    --short-run)
        mapfile -t COMPREPLY < <(compgen -W "quarter null" -- "$cur")
        return 0
        ;;
    --csv | --plot | --calibration | --unix | --op-times)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        [[ $prev == --unix ]] && mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W none -- "$cur")
        compopt -o filenames 2>/dev/null
        return 0
        ;;
    esac
    # any other value (a duration, a size, a count): nothing to offer
    [[ -n $cmd && $prev == --* && $'\n'$opts$'\n' == *$'\n'$prev=$'\n'* ]] && return 0

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$("$bin" --help 2>/dev/null |
                awk '/^Commands:/ { f = 1; next } f && !NF { exit } f { print $1 }')" -- "$cur")
        fi
        return 0
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${opts//=/}" -- "$cur")
        return 0
    fi
    case $cmd in
    measure | sweep | predict)
        [[ -z $workload ]] && mapfile -t COMPREPLY < <(compgen -W "$(_displace_workloads "$bin")" -- "$cur")
        ;;
    ticks)
        mapfile -t COMPREPLY < <(compgen -f -X '!*.csv' -- "$cur"; compgen -d -- "$cur")
        compopt -o filenames 2>/dev/null
        ;;
    esac
    return 0
}
complete -F _displace displace
