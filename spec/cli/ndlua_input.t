Bad YAML and JSON input: each refused document exits 2 with one message that
names the file (and the line and column where there is one).

  $ cat > load.lua <<'EOF'
  > local nd = require "nd"
  > local path = arg[1]
  > local doc = path:match("%.json$") and nd.json.load(path) or nd.yaml.load(path)
  > print("read", path)
  > EOF

A syntax error gives libyaml's problem, where it is, and what was being read
(PyYAML points at the same line 2, column 2 and line 1, column 4):

  $ printf 'model:\n  layers: [1, 2\nrun: 3\n' > syntax.yaml
  $ ndlua load.lua syntax.yaml
  syntax.yaml:3:4: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 2, column 11)
  [2]
  $ printf 'a: b: c\n' > colon.yaml
  $ ndlua load.lua colon.yaml
  colon.yaml:1:5: YAML syntax error: mapping values are not allowed in this context
  [2]

Two documents in one file:

  $ printf 'a: 1\n---\nb: 2\n' > two.yaml
  $ ndlua load.lua two.yaml
  two.yaml:2:1: a second YAML document in one file; ndlua reads one document a file
  [2]

An alias bomb (billion laughs: nine levels of nine aliases each, 9^9 strings):

  $ ndlua -e '
  > local lines = { "a: &a [" .. ("lol, "):rep(8) .. "lol]" }
  > local names = "abcdefghi"
  > for i = 2, #names do
  >   local n, p = names:sub(i, i), names:sub(i - 1, i - 1)
  >   lines[#lines + 1] = n .. ": &" .. n .. " [" .. ("*" .. p .. ", "):rep(8) .. "*" .. p .. "]"
  > end
  > io.open("bomb.yaml", "w"):write(table.concat(lines, "\n"), "\n")'
  $ ndlua load.lua bomb.yaml
  bomb.yaml:7:8: the document expands to more than a million nodes through its aliases; refusing it (a billion-laughs document?)
  [2]

Nesting 10 000 deep, in YAML and in JSON:

  $ ndlua -e 'io.open("deep.yaml", "w"):write(("["):rep(10000), ("]"):rep(10000), "\n")'
  $ ndlua load.lua deep.yaml
  deep.yaml:1:257: the document nests deeper than 256 levels; refusing it
  [2]
  $ ndlua -e 'io.open("deep-map.yaml", "w"):write(("{a: "):rep(10000), "1", ("}"):rep(10000), "\n")'
  $ ndlua load.lua deep-map.yaml
  deep-map.yaml:1:1025: the document nests deeper than 256 levels; refusing it
  [2]
  $ ndlua -e 'io.open("deep.json", "w"):write(("["):rep(10000), ("]"):rep(10000), "\n")'
  $ ndlua load.lua deep.json
  deep.json:1:257: the document nests deeper than 256 levels; refusing it
  [2]

A JSON syntax error (python3's json.loads: "Expecting value: line 2 column 13"):

  $ printf '{"a": 1,\n "b": [1, 2,, 3]}' > syntax.json
  $ ndlua load.lua syntax.json
  syntax.json:2:13: JSON syntax error at ','
  [2]

A file that is missing, or is a directory:

  $ ndlua load.lua missing.yaml
  missing.yaml: cannot read: No such file or directory
  [2]
  $ mkdir adir.yaml && ndlua load.lua adir.yaml
  adir.yaml: is a directory, not a file
  [2]

A good file reads:

  $ printf 'a: 1\n' > good.yaml && ndlua load.lua good.yaml
  read	good.yaml

The demo `make run` runs reads the bundled example and shows values with
their key paths and positions (grep -n in the file gives the same lines):

  $ cd "$ROOT" && ndlua examples/demo.lua
  examples/qwen3-30b-a3b-fsdp8/train.yaml: top-level keys, in file order:
    model, training, accelerator, fsdp_config, plan_overrides, mixed_precision, activation_checkpoint, activation_swap, compile, dataset, dataloader, optimizer, lr_scheduler, checkpoint, debug, profiling
  
  Some values (file:line:column: key path = value):
    examples/qwen3-30b-a3b-fsdp8/train.yaml:15:34: model.pretrained_model_name_or_path = "Qwen/Qwen3-30B-A3B"
    examples/qwen3-30b-a3b-fsdp8/train.yaml:17:16: model.torch_dtype = "bfloat16"
    examples/qwen3-30b-a3b-fsdp8/train.yaml:24:22: training.global_batch_size = 8 (integer)
    examples/qwen3-30b-a3b-fsdp8/train.yaml:25:21: training.micro_batch_size = 1 (integer)
    examples/qwen3-30b-a3b-fsdp8/train.yaml:23:18: training.train_samples = null
    examples/qwen3-30b-a3b-fsdp8/train.yaml:34:12: accelerator.tp_size = 1 (integer)
    examples/qwen3-30b-a3b-fsdp8/train.yaml:42:18: fsdp_config.dp_shard_size = 8 (integer)
    examples/qwen3-30b-a3b-fsdp8/train.yaml:43:21: fsdp_config.replicate_params = []
    examples/qwen3-30b-a3b-fsdp8/train.yaml:89:9: activation_checkpoint.mode = "full"
    examples/qwen3-30b-a3b-fsdp8/train.yaml:116:18: dataset.data_transform.max_seq_len = 4096 (integer)
    examples/qwen3-30b-a3b-fsdp8/train.yaml:150:14: optimizer.muon_config.muon_lr = 3e-05 (float)
    examples/qwen3-30b-a3b-fsdp8/train.yaml:159:18: optimizer.adamw_config.adamw_betas = [0.9,0.999]
