Output files (issue 13, items 4 and 5): a write that fails ends non-zero
with the path named, and an output that is one of the run's inputs (or
another output) is refused before anything is written.

A small run to write: Qwen3-8B from the catalog on 8 devices, only DP and
TP searched.

  $ cat > train.yaml <<'EOF'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-8B
  > training:
  >   global_batch_size: 16
  > dataset:
  >   data_transform:
  >     max_seq_len: 4096
  > optimizer:
  >   _target_: adamw
  > EOF
  $ cp train.yaml train.yaml.orig
  $ ndlua search.lua train.yaml -d 8 -l DP TP -v 0 -t 1 --csv all.csv --svg top.svg > /dev/null && head -c 9 top.svg && echo && wc -l < all.csv && ls
  <?xml ver
  4
  all.csv
  resolved.yaml
  top.svg
  train.yaml
  train.yaml.orig

Failed writes. /dev/full takes nothing ("No space left on device"); each
ends non-zero, never 0 with the file silently empty.

  $ ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --csv /dev/full > /dev/null
  /dev/full: cannot write: No space left on device; the CSV was not written
  [2]
  $ ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --svg /dev/full > /dev/null
  /dev/full: cannot write: No space left on device; the chart was not written
  [2]
  $ ndlua estimate.lua train.yaml -d 8 --svg /dev/full > /dev/null
  /dev/full: cannot write: No space left on device; the chart was not written
  [2]

resolved.yaml on a full disk: here its place is a link to /dev/full.

  $ mkdir full && ln -s /dev/full full/resolved.yaml && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 -o full > /dev/null
  full/resolved.yaml: cannot write: No space left on device; the resolved yaml was not written
  [2]

A write that fails part-way (a file-size limit of 0 blocks: every write
fails with "File too large") leaves nothing behind: the file is written
beside its place and renamed over it only once it is whole. (The binary
runs here without $NDLUA_WRAPPER: valgrind cannot write its own files
under the limit.)

  $ mkdir small && (trap '' XFSZ; ulimit -f 0; $NDLUA search.lua train.yaml -d 8 -l DP TP -v 0 -o small 2>&1 >/dev/null | cat); ls -A small
  small/resolved.yaml: cannot write: File too large; the resolved yaml was not written

The standard output to a full device: the report is lost, so the run fails.

  $ ndlua search.lua train.yaml -d 8 -l DP TP -v 0 > /dev/full
  ndlua: cannot write the standard output: * (glob)
  [2]
  $ ndlua estimate.lua train.yaml -d 8 > /dev/full 2>/dev/null; echo $?
  2
  $ ndlua -e 'print("x") os.exit(0)' > /dev/full
  ndlua: cannot write the standard output: * (glob)
  [2]

An output that is an input. Each is refused before anything is written:
the input is unchanged (cmp prints nothing) and no other output appears.
Each case runs in a directory of its own.

  $ mkdir a && cp train.yaml a/ && cd a && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --csv train.yaml; cmp train.yaml ../train.yaml.orig && ls
  --csv: train.yaml is the TRAIN_YAML this run reads; writing it would destroy it; name another file
  train.yaml
  $ mkdir b && cp train.yaml b/ && cd b && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --svg ./train.yaml; cmp train.yaml ../train.yaml.orig && ls
  --svg: ./train.yaml is the TRAIN_YAML this run reads; writing it would destroy it; name another file
  train.yaml
  $ mkdir -p c/out && cp train.yaml c/out/resolved.yaml && cd c && ndlua search.lua out/resolved.yaml -d 8 -l DP TP -v 0 -o out; cmp out/resolved.yaml ../train.yaml.orig && ls out
  -o: out/resolved.yaml is the TRAIN_YAML this run reads; writing it would destroy it; name another file
  resolved.yaml
  $ mkdir d && cp train.yaml d/ && cd d && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 -o . --csv resolved.yaml; ls
  --csv: resolved.yaml is also where -o writes; one would overwrite the other; name two files
  train.yaml
  $ mkdir e && cp train.yaml e/ && cd e && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --csv x --svg ./x; ls
  --csv: x is also where --svg writes; one would overwrite the other; name two files
  train.yaml
  $ mkdir f && cp train.yaml f/ && cd f && ndlua estimate.lua train.yaml -d 8 --svg $HOME/f/train.yaml; cmp train.yaml ../train.yaml.orig && ls
  --svg: */f/train.yaml is the TRAIN_YAML this run reads; writing it would destroy it; name another file (glob)
  train.yaml

The model's config.json and a policy file are inputs too:

  $ mkdir -p ckpt && cp $ROOT/lua/nd/catalog/Qwen--Qwen3-8B/config.json ckpt/ && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --model.pretrained_model_name_or_path=ckpt --csv ckpt/config.json; cmp ckpt/config.json $ROOT/lua/nd/catalog/Qwen--Qwen3-8B/config.json
  --csv: ckpt/config.json is the model's config.json this run reads; writing it would destroy it; name another file
  $ echo 'return { order = { "peak_bytes" } }' > mine.lua && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 --policy mine.lua --svg mine.lua; cat mine.lua
  --svg: mine.lua is the ranking policy (--policy) this run reads; writing it would destroy it; name another file
  return { order = { "peak_bytes" } }

Two outputs to one device are no clash:

  $ ndlua search.lua train.yaml -d 8 -l DP TP -v 0 -t 1 --csv /dev/null --svg /dev/null | wc -l
  3

The directory of -o is made with its missing parents (nd.core.mkdir_p, no
`mkdir -p` child); one that cannot be made (a file is in its way) is named
with the reason, and nothing is written:

  $ ndlua search.lua train.yaml -d 8 -l DP TP -v 0 -t 1 -o out/deeper/deepest > /dev/null && ls out/deeper/deepest
  resolved.yaml
  $ touch blocker && ndlua search.lua train.yaml -d 8 -l DP TP -v 0 -t 1 -o blocker/below > /dev/null
  blocker/below: cannot create the directory: Not a directory; the resolved yaml was not written
  [2]
