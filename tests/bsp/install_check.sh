#!/bin/sh
# install_check.sh BUILD HELLO.c PROGRAM.vec: installs the build into a
# temporary prefix, moves the tree elsewhere (it must not depend on where it
# was installed), then, from there only: bspcc and bsprun build and run a
# BSPlib program; pkg-config's flags build it with the C compiler alone;
# vecbsp runs a VEC-BSP program (compiled by the installed bspcc) and
# agrees with its own interpreter; the manual pages are installed and
# bspcc and bsprun answer --help themselves.
set -u
build=$1 hello=$2 program=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/first" >"$tmp/install.log" 2>&1 || fail "cmake --install: $(cat "$tmp/install.log")"
mv "$tmp/first" "$tmp/moved"
p=$tmp/moved
for f in bin/vecbsp bin/bspcc bin/bsprun bin/bspprobe include/bsp.h lib/libbsp_threads.a lib/pkgconfig/bsplib-threads.pc \
         share/man/man1/vecbsp.1 share/man/man1/bspcc.1 share/man/man1/bsprun.1; do
  [ -e "$p/$f" ] || fail "not installed: $f"
done
grep -q "$build" "$p/bin/bspcc" && fail "the installed bspcc names the build tree"
for page in vecbsp bspcc bsprun; do
  head -1 "$p/share/man/man1/$page.1" | grep -qi "^\.TH $page 1" || fail "$page.1 is not a manual page"
done
"$p/bin/bspcc" --help | grep -q "^usage: bspcc" || fail "installed bspcc --help"
"$p/bin/bsprun" --help | grep -q "^usage: bsprun" || fail "installed bsprun --help"
cd "$tmp" || exit 1
"$p/bin/bspcc" -O2 "$hello" -o hello || fail "installed bspcc"
"$p/bin/bsprun" -n 3 ./hello hello-arg | grep -q "hello: p=3 sum=6" || fail "installed bsprun"
PKG_CONFIG_PATH=$p/lib/pkgconfig
export PKG_CONFIG_PATH
cc $(pkg-config --cflags bsplib-threads) "$hello" -o hello2 $(pkg-config --libs bsplib-threads) || fail "pkg-config flags"
"$p/bin/bsprun" -n 2 ./hello2 hello-arg | grep -q "hello: p=2 sum=3" || fail "the program built with pkg-config's flags"
export VECBSP_CACHE=$tmp/cache
ran=$("$p/bin/vecbsp" run "$program" -D n=1000 --random 4 -p 2) || fail "installed vecbsp run"
evaluated=$("$p/bin/vecbsp" eval "$program" -D n=1000 --random 4) || fail "installed vecbsp eval"
[ "$ran" = "$evaluated" ] || fail "vecbsp run gave $ran, eval $evaluated"
echo "install: ok"
