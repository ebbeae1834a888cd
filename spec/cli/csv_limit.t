Bounded --csv output (issue 34 item 9). Qwen/Qwen3-8B on 64 devices, a
global batch of 64: 1512 candidates fit (the CSV without a limit is its
header and 1512 rows, 1513 lines):

  $ ndlua search.lua Qwen/Qwen3-8B -d 64 -b 64 --csv all.csv -v 0 -t 1 > /dev/null; wc -l < all.csv
  1513

--csv-limit N writes the first N in rank order, and says so on the
standard error before writing, with the size estimated from the first row
(header and 100 rows of 246 bytes: 24.2 KiB; the file is 25592 bytes, 25.0
KiB, rows further down having a few more digits):

  $ ndlua search.lua Qwen/Qwen3-8B -d 64 -b 64 --csv some.csv --csv-limit 100 -v 0 -t 1 > /dev/null
  search.lua: --csv some.csv: the first 100 of 1512 fitting candidates (--csv-limit 100), about 24.2 KiB (100 rows of about 246 bytes)
  $ wc -l < some.csv; wc -c < some.csv; head -n 101 all.csv | cmp - some.csv && echo "the first 101 lines of all.csv"
  101
  25592
  the first 101 lines of all.csv

A limit over the fitting count writes them all, and says nothing (a CSV of
a GiB or more would be announced the same way before it is written):

  $ ndlua search.lua Qwen/Qwen3-8B -d 64 -b 64 --csv more.csv --csv-limit 5000 -v 0 -t 1 > /dev/null; cmp all.csv more.csv && echo same
  same

The limit needs a --csv file and a count from 1:

  $ ndlua search.lua Qwen/Qwen3-8B -d 64 -b 64 --csv-limit 100
  --csv-limit: bounds the --csv file, but no --csv FILE was given; --csv FILE --csv-limit N
  [2]
  $ ndlua search.lua Qwen/Qwen3-8B -d 64 -b 64 --csv x.csv --csv-limit 0
  --csv-limit: takes a whole number above 0, got '0'
  [2]
