#!/usr/bin/env bash
# Download, here, the wheels gpu_check.sh and bench_serve.py need on a GPU machine that
# has CUDA, torch, transformers and accelerate but no package index (Python 3.12, x86-64):
#
#   benchmarks/gpu_wheels.sh DIR      then, there:   benchmarks/gpu_check.sh DIR
#
# flashinfer-python 0.6.0: its wheel is 7.5 MB and imports with apache-tvm-ffi alone;
# 0.7.x is over 100 MB. The versions are the ones measured on the H200 (docs/performance.md).
set -euo pipefail
DIR="${1:?usage: benchmarks/gpu_wheels.sh DIR}"
mkdir -p "$DIR"
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any -d "$DIR" \
    flashinfer-python==0.6.0 apache-tvm-ffi==0.1.15.post2 \
    omnivoice==0.2.1 pydub==0.25.1 soundfile==0.14.0 cffi==2.1.1 pycparser==3.12 \
    platformdirs==4.14.9 \
    fastapi==0.165.0 starlette==1.10.0 pydantic==2.14.4 pydantic_core==2.50.5 \
    annotated-types==0.8.0 typing-inspection==0.4.5 uvicorn==0.55.0 opentelemetry-api==1.45.2
ls "$DIR"
