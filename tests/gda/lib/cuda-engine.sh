#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build tests/gda/lib/cuda_engine.cu (gda/cuda-engine-cpu, gda/cuda-gpu-post)
# into OUTDIR/cuda_engine: the model's engine and what it uses (the C11
# files tests/unit links: qemu-model/engine, mad, link) and the host side
# cuda_engine_host.c with gcc at -O1 as tests/unit, the poster with nvcc
# (sm_90, every warning an error).  --sanitize builds the C and the host
# code with ASan and UBSan, as tests/unit: for --cpu runs only (the CUDA
# runtime and ASan's shadow memory do not mix on a GPU).
# tests/gda/run-gda calls it; it needs no guest, lab or GPU.
#	tests/gda/lib/cuda-engine.sh NVCC OUTDIR [--sanitize]
# Exit status 0 when built; the compilers' messages on stdout/stderr.
set -eu
nvcc=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
model=$top/qemu-model
mkdir -p "$out/obj"

cflags=(-O1 -g -Wall -Wextra -Werror -pthread
	-I"$top/include" -I"$model/engine" -I"$top/tests/unit")
nvflags=()
if [ "${3:-}" = --sanitize ]; then
	cflags+=(-fno-omit-frame-pointer -fsanitize=address,undefined
		 -fno-sanitize-recover=all)
	# nvcc splits -Xcompiler arguments at commas
	nvflags=(-Xcompiler -fsanitize=address -Xcompiler -fsanitize=undefined
		 -Xcompiler -fno-sanitize-recover=all)
fi
objs=()
cc_one() {	# STD SRC
	local o
	o=$out/obj/$(basename "$(dirname "$2")")_$(basename "$2" .c).o
	gcc -std="$1" -D_DEFAULT_SOURCE "${cflags[@]}" -c -o "$o" "$2"
	objs+=("$o")
}
for f in "$model"/engine/*.c; do cc_one c11 "$f"; done
for f in "$model"/mad/*.c "$model"/link/*.c; do
	[ "$(basename "$f")" = main.c ] || cc_one gnu11 "$f"
done
cc_one gnu11 "$here/cuda_engine_host.c"

"$nvcc" -arch=sm_90 -O2 -Werror all-warnings "${nvflags[@]}" -I"$top/include" \
	-I"$top/tools/rdma-core/providers/sfab" -o "$out/cuda_engine" \
	"$here/cuda_engine.cu" "${objs[@]}" -lpthread
