set -u
export PY=/opt/torch/.venv/bin/python
export PYTHONPATH=$PWD/python MRCTX_LIBRARY=$PWD/build-gpu/lib/libmrctx.so
cd examples
timeout 230 $PY run_interleaved.py --runs 5 train_gpt.py torch mrctx-cache mrctx-device -- --steps 50 --warmup 10 > $OUT/gpt.txt 2>&1; grep -v '^{' $OUT/gpt.txt | tail -5
timeout 200 $PY run_interleaved.py --runs 5 train_resnet.py torch mrctx-cache mrctx-device -- --steps 50 --warmup 10 > $OUT/resnet.txt 2>&1; grep -v '^{' $OUT/resnet.txt | tail -5
timeout 100 $PY run_interleaved.py --runs 5 cupy_pipeline.py cupy mrctx-cache mrctx-device > $OUT/cupy.txt 2>&1; grep -v '^{' $OUT/cupy.txt | tail -5
timeout 60 $PY two_libraries.py > $OUT/two.txt 2>&1; tail -30 $OUT/two.txt
timeout 60 $PY alloc_cost.py > $OUT/cost.txt 2>&1; tail -15 $OUT/cost.txt
