#!/bin/sh
# Flags and pkg-config's output are meant to be split into words:
# shellcheck disable=SC2046,SC2086

# The installed runtime as an application sees it: install the build tree's
# `runtime` component into a scratch prefix, then build and run
#   consumer/ with CMake (find_package: C++ against the static and the shared
#            library, C against the static one),
#   consumer_c/, a C-only CMake project (no C++ enabled): the static and the
#            shared library,
#   consumer/consumer.c with pkg-config: the shared library (plain --libs,
#            run with LD_LIBRARY_PATH), a fully static program (--static),
#            and the archive in a dynamic program (the README's line),
# each reading TABLE. Nothing but TABLE is taken from the source tree.
#
# usage: consumer_test.sh CMAKE BUILD_DIR CONSUMER_DIR TABLE WORK_DIR CXX_STANDARD CC CXX [SANITIZE_FLAGS]
# SANITIZE_FLAGS: the flags the runtime was built with under the sanitizer
# preset; the consumer links with them, and the fully static link is skipped
# (the sanitizers cannot be linked statically).
set -eu
cmake=$1 build=$2 consumer=$3 table=$4 work=$5 cxx_standard=$6 cc=$7 cxx=$8 sanitize=${9:-}

step() { echo "== $*"; }
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

step "install --component runtime into $prefix"
"$cmake" --install "$build" --component runtime --prefix "$prefix"
for tool in vktune vktune-bench vktune_runtime_example; do
  if [ -e "$prefix/bin/$tool" ]; then echo "the runtime component installed $tool"; exit 1; fi
done

step "CMake consumer (C++$cxx_standard)"
"$cmake" -S "$consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCONSUMER_CXX_STANDARD="$cxx_standard" \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="$sanitize"
grep -q "^vktune_runtime_DIR:PATH=$prefix/" "$work/cmake/CMakeCache.txt" ||
  { echo "find_package found a vktune_runtime outside $prefix"; exit 1; }
"$cmake" --build "$work/cmake" -j2
for program in consumer_cpp_static consumer_cpp_shared consumer_c_static; do
  step "run $program"
  "$work/cmake/$program" "$table"
done

step "CMake consumer in C only (project(x C))"
"$cmake" -S "$consumer/../consumer_c" -B "$work/cmake_c" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="$sanitize"
"$cmake" --build "$work/cmake_c" -j2
for program in c_only_static c_only_shared; do
  step "run $program"
  "$work/cmake_c/$program" "$table"
done

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR 2>/dev/null || true
c99="-std=c99 -pedantic -Wall -Wextra -Werror"
{
  step "pkg-config: shared library"
  "$cc" $c99 $sanitize "$consumer/consumer.c" $(pkg-config --cflags vktune_runtime) -o "$work/c_shared" \
    $(pkg-config --libs vktune_runtime)
  LD_LIBRARY_PATH="$prefix/lib" "$work/c_shared" "$table"

  step "pkg-config: the archive in a dynamic program"
  "$cc" $c99 $sanitize "$consumer/consumer.c" $(pkg-config --cflags vktune_runtime) -o "$work/c_archive" \
    "$(pkg-config --variable=libdir vktune_runtime)/libvktune_runtime.a" -lsqlite3 -lstdc++ -lm
  "$work/c_archive" "$table"

  if [ -z "$sanitize" ]; then
    step "pkg-config --static: a fully static program"
    # SQLite's (unused) extension loading makes ld warn about dlopen here.
    "$cc" $c99 "$consumer/consumer.c" $(pkg-config --cflags vktune_runtime) -o "$work/c_static" \
      -static $(pkg-config --static --libs vktune_runtime)
    "$work/c_static" "$table"
  fi
}

# Neither program needs the shared library but the first.
for program in c_archive c_static cmake/consumer_cpp_static cmake/consumer_c_static cmake_c/c_only_static; do
  [ -e "$work/$program" ] || continue
  if readelf -d "$work/$program" | grep -q "libvktune_runtime"; then
    echo "$program depends on libvktune_runtime.so"
    exit 1
  fi
done
readelf -d "$work/c_shared" | grep -q "NEEDED.*libvktune_runtime.so.0" || { echo "c_shared does not use the .so"; exit 1; }
step "all consumers passed"
