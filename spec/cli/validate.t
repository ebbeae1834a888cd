scripts/validate.lua: ndlua against published measured runs (issue 12;
the cases are spec/validation/*.lua, the harness lua/nd/validation.lua).
Here on a directory of synthetic cases whose ndlua values are fixed by
their `ndlua` functions, so the table is known: 12 against 10 measured is
+20 %, 9.5 against 10 is -5 %. A case over its tolerance with a
`known_gap` says so; one back within it asks for the text to go. The
calibration cases are listed apart from the validation cases, and the four
last lines sum each set's memory and time cases: calibration memory over
close, far, gap and closed (5, 20, 30 and 3 %: mean 14.5 %, max 30 %),
validation memory over held and missed (2 and 12 %: mean 7 %), validation
time over slow (10 %); no calibration time case. A case of neither set
cannot be built (unset), as one with an unknown run key.

  $ ndlua $ROOT/scripts/validate.lua --help
  usage: ndlua scripts/validate.lua [--csv FILE] [--svg FILE] [--group NAME] [--set NAME] [--check] [--dir DIR]
  
  Compares ndlua's memory and step-time estimates with measured runs, published or measured
  here (the cases of spec/validation/): measured, ndlua, error % and tolerance per case, the
  calibration cases (their data informed a mechanism or a constant) apart from the validation
  cases (never looked at while designing one), then the mean and largest |error %| per group,
  and last per set and kind: "calibration memory: N cases, mean X %, max Y %".
  
  options:
        --csv FILE    also write the rows as CSV to FILE
        --svg FILE    also write a chart of each case's error and tolerance to FILE
        --group NAME  only the cases of this group (e.g. "megatron memory")
        --set NAME    only the cases of this set (calibration or validation)
        --check       exit with status 2 when a case is over its tolerance or cannot be built
        --dir DIR     the directory of case files (default spec/validation)
    -h, --help        print this help and exit

  $ mkdir cases
  $ cat > cases/synthetic.lua <<'LUA'
  > local MODEL = { name = "small", arch = "default", hidden_size = 256, num_hidden_layers = 2,
  >                 num_attention_heads = 4, intermediate_size = 1024, vocab_size = 1000 }
  > local function case(id, group, measured, value, tolerance, run, gap, set)
  >   return { id = id, set = set or "calibration", group = group, kind = "memory", source = "this transcript",
  >            config = "a small model", model = MODEL, run = run or { dp = 2, seq_length = 512 },
  >            metric = "allocated", measured = measured, unit = "GB", tolerance = tolerance, note = "synthetic",
  >            known_gap = gap, reached = gap and 0.5, ndlua = function() return value end }
  > end
  > local slow = case("slow", "third", 2, 2.2, 0.15, nil, nil, "validation")
  > slow.kind, slow.metric, slow.unit, slow.hardware = "time", "step_time_s", "s", "H100"
  > return {
  >   case("close", "first", 10, 9.5, 0.10),
  >   case("far", "first", 10, 12, 0.10),
  >   case("held", "first", 50, 51, 0.10, nil, nil, "validation"),
  >   case("gap", "first", 10, 7, 0.10, nil, "ndlua misses 3 GB"),
  >   case("closed", "first", 10, 10.3, 0.10, nil, "was -30 %"),
  >   case("unbuildable", "second", 10, 10, 0.10, { dp = 2, no_such_field = true }),
  >   case("missed", "third", 25, 22, 0.10, nil, nil, "validation"),
  >   case("unset", "third", 25, 22, 0.10, nil, nil, "held out"),
  >   slow,
  > }
  > LUA
  $ ndlua $ROOT/scripts/validate.lua --dir cases --csv rows.csv --svg chart.svg
  calibration: the data informed a mechanism or a constant, or was measured here to check one
  
  case         measured    ndlua    error  tolerance
  --------------------------------------------------
  close           10 GB   9.5 GB   -5.0 %       10 %  pass
  far             10 GB    12 GB  +20.0 %       10 %  over
  gap             10 GB     7 GB  -30.0 %       10 %  over (known gap)
  closed          10 GB  10.3 GB   +3.0 %       10 %  pass (the known gap closed: drop known_gap)
  unbuildable     10 GB        -        -       10 %  error: run: unknown key 'no_such_field'
  
  validation: never looked at while designing a mechanism or a constant
  
  case    measured  ndlua    error  tolerance
  -------------------------------------------
  held       50 GB  51 GB   +2.0 %       10 %  pass
  missed     25 GB  22 GB  -12.0 %       10 %  over
  slow         2 s  2.2 s  +10.0 %       15 %  pass
  
  cases of no set (they cannot be built)
  
  case   measured  ndlua  error  tolerance
  ----------------------------------------
  unset     25 GB      -      -          -  error: set 'held out' is not calibration (its data informed a mechanism or a constant) or validation (never looked at while designing one)
  
  set         group                   cases  mean|err|   max|err|   over  errors
  calibration first                       4     14.5 %     30.0 %      2       0
  validation  first                       1      2.0 %      2.0 %      0       0
  calibration second                      1          -          -      0       1
  validation  third                       2     11.0 %     12.0 %      1       0
  held out    third                       1          -          -      0       1
  
  calibration memory: 4 cases, mean 14.5 %, max 30.0 %
  calibration time: 0 cases, mean -, max -
  validation memory: 2 cases, mean 7.0 %, max 12.0 %
  validation time: 1 cases, mean 10.0 %, max 10.0 %
  csv: rows.csv
  chart: chart.svg
  $ head -3 rows.csv
  id,set,group,kind,metric,unit,measured,ndlua,error_pct,tolerance_pct,status,known_gap,message,source,config,note
  close,calibration,first,memory,allocated,GB,10,9.5,-5,10,pass,,,this transcript,a small model,synthetic
  far,calibration,first,memory,allocated,GB,10,12,20,10,over,,,this transcript,a small model,synthetic

--check names every case over its tolerance or in error, and exits 2:

  $ ndlua $ROOT/scripts/validate.lua --dir cases --group first --check
  calibration: the data informed a mechanism or a constant, or was measured here to check one
  
  case    measured    ndlua    error  tolerance
  ---------------------------------------------
  close      10 GB   9.5 GB   -5.0 %       10 %  pass
  far        10 GB    12 GB  +20.0 %       10 %  over
  gap        10 GB     7 GB  -30.0 %       10 %  over (known gap)
  closed     10 GB  10.3 GB   +3.0 %       10 %  pass (the known gap closed: drop known_gap)
  
  validation: never looked at while designing a mechanism or a constant
  
  case  measured  ndlua   error  tolerance
  ----------------------------------------
  held     50 GB  51 GB  +2.0 %       10 %  pass
  
  set         group                   cases  mean|err|   max|err|   over  errors
  calibration first                       4     14.5 %     30.0 %      2       0
  validation  first                       1      2.0 %      2.0 %      0       0
  
  calibration memory: 4 cases, mean 14.5 %, max 30.0 %
  calibration time: 0 cases, mean -, max -
  validation memory: 1 cases, mean 2.0 %, max 2.0 %
  validation time: 0 cases, mean -, max -
  2 case(s) over tolerance or in error: far (+20.0 %), gap (-30.0 %)
  [2]

--group and --set pick cases (here the validation cases of group third);
a set other than the two is refused, as a case's is (unset above):

  $ ndlua $ROOT/scripts/validate.lua --dir cases --group third --set validation
  validation: never looked at while designing a mechanism or a constant
  
  case    measured  ndlua    error  tolerance
  -------------------------------------------
  missed     25 GB  22 GB  -12.0 %       10 %  over
  slow         2 s  2.2 s  +10.0 %       15 %  pass
  
  set         group                   cases  mean|err|   max|err|   over  errors
  validation  third                       2     11.0 %     12.0 %      1       0
  
  calibration memory: 0 cases, mean -, max -
  calibration time: 0 cases, mean -, max -
  validation memory: 1 cases, mean 12.0 %, max 12.0 %
  validation time: 1 cases, mean 10.0 %, max 10.0 %

  $ ndlua $ROOT/scripts/validate.lua --dir cases --set held
  --set: 'held' is not a set; calibration or validation
  [2]

  $ ndlua $ROOT/scripts/validate.lua --dir nowhere
  --dir: 'nowhere' is not a directory of case files; run from the repository root, or name the directory with --dir
  [2]
