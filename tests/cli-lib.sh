# cli-lib.sh: what the shell tests of the command line share (sourced after
# setting $vecbsp, $check (tests/cost/json_check.py or the like), $tmp and a
# fail function).

# expect_error LINE CMD...: exit status 1, nothing on stdout, LINE first on stderr.
expect_error() {
  local want=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local status=$?
  [ $status -eq 1 ] || fail "$* exited with $status"
  [ -s "$tmp/out" ] && fail "$*: printed on stdout"
  [ "$(head -n 1 "$tmp/err")" = "$want" ] || fail "$*:
  got  $(head -n 1 "$tmp/err")
  want $want"
}

# json ARGS... -- PATH=VALUE...: runs vecbsp with ARGS and checks its JSON with $check.
json() {
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  "$vecbsp" "${args[@]}" >"$tmp/out.json" || { fail "${args[*]} failed"; return; }
  "$check" "$tmp/out.json" "$@" || fail "${args[*]}"
}
