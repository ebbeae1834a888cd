Device capacity on the command line (issue 13, item 2). A size needs its
unit on the command line as it does in context.max_device_memory: a bare
`-M 80` is refused, not read as 80 bytes (capacity 0.00 GiB). Every
capacity printed says where it came from and how its unit was read: ndlua
reads GB as GiB (2^30 bytes), as the reference planner and the trainers do.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -M 80
  -M: '80' has no unit; a size needs one on the command line as in the yaml (80 would be read as 80 bytes); 80GB or 80GiB (both 2^30 bytes: ndlua reads GB as GiB), 512MiB, or 80B for bytes
  [2]
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -M 64 -A A3
  -M: '64' has no unit; a size needs one on the command line as in the yaml (64 would be read as 64 bytes); 64GB or 64GiB (both 2^30 bytes: ndlua reads GB as GiB), 512MiB, or 64B for bytes
  [2]
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -M 64GB -mem 2
  -mem: '2' has no unit; a size needs one on the command line as in the yaml (2 would be read as 2 bytes); 2GB or 2GiB (both 2^30 bytes: ndlua reads GB as GiB), 512MiB, or 2B for bytes
  [2]

80GB is 80 x 2^30 bytes = 80.00 GiB; 80GiB the same, with nothing to note;
0.5TB is 2^39 bytes = 512.00 GiB.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -M 80GB 2>/dev/null | tail -1
  device capacity 80.00 GiB (-M 80GB, GB read as GiB, 2^30 bytes): fits: * (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -M 80GiB 2>/dev/null | tail -1
  device capacity 80.00 GiB (-M 80GiB): fits: * (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -M 0.5TB 2>/dev/null | tail -1
  device capacity 512.00 GiB (-M 0.5TB, TB read as TiB, 2^40 bytes): fits: * (glob)

`-A DEVICE` makes the device's memory the capacity when neither -M nor the
yaml states one. The H100 profile states 81559MiB (what nvidia-smi reports
for an 80 GB H100 SXM): 81559 / 1024 = 79.65 GiB. A3 states 64GB = 64 GiB.
Without -A the default is 64GB.

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -A H100 2>/dev/null | tail -1
  device capacity 79.65 GiB (H100's memory 81559MiB): fits: * (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -A A3 2>/dev/null | tail -1
  device capacity 64.00 GiB (A3's memory 64GB, GB read as GiB, 2^30 bytes): fits: * (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml 2>/dev/null | tail -1
  device capacity 64.00 GiB (the default 64GB, GB read as GiB, 2^30 bytes): fits: * (glob)

-M wins over -A, and so does the yaml's context.max_device_memory (58GB =
58.00 GiB):

  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -A H100 -M 40GiB 2>/dev/null | tail -1
  device capacity 40.00 GiB (-M 40GiB): fits: * (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -A H100 --context.max_device_memory=58GB 2>/dev/null | tail -1
  device capacity 58.00 GiB (context.max_device_memory 58GB, GB read as GiB, 2^30 bytes): fits: * (glob)
  $ ndlua estimate.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -A Z9
  -A: 'Z9' is no hardware profile ndlua knows; one of 910B, 910C, A100-80GB, A2, A3, B200, GB200, H100, H20, H200, H800, MI300X (or add nd/hardware/Z9.lua to a directory on NDLUA_PATH)
  [2]

The search states its budget the same way:

  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -A H100 -t 1 -v 0 --json | grep budget_bytes
      "budget_bytes": 85520809984,
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -A H100 -t 1 2>/dev/null | head -1
  search: qwen3_moe on 64 devices (H100), a global batch of 128, 79.65 GiB a device (H100's memory 81559MiB); * (glob)
  $ ndlua search.lua $ROOT/examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -M 58GB -A A3 -t 1 2>/dev/null | head -1
  search: qwen3_moe on 64 devices (A3), a global batch of 128, 58.00 GiB a device (-M 58GB, GB read as GiB, 2^30 bytes); * (glob)
