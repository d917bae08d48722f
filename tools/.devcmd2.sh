set -u
export PY=/opt/torch/.venv/bin/python
export PYTHONPATH=$PWD/python MRCTX_LIBRARY=$PWD/build-gpu/lib/libmrctx.so
cd examples
timeout 300 $PY run_interleaved.py --runs 5 train_gpt.py torch mrctx-cache mrctx-device -- --steps 50 --warmup 10 > $OUT/gpt.txt 2>&1; grep -v '^{' $OUT/gpt.txt | tail -4
timeout 150 $PY run_interleaved.py --runs 3 alloc_cost.py torch mrctx-cache mrctx-device -- --steps 20 --warmup 5 > $OUT/cost.txt 2>&1; grep -v '^{' $OUT/cost.txt | tail -4; grep '^{' $OUT/cost.txt | tail -1 | head -c 3000
