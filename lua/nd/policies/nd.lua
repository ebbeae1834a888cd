-- nd: the reference planner's (SAPP-ND's) ranking: its relative score of
-- "bytes-weighted work" (reference/search-ranking-cli.md §d, src/search/nd_score.c),
-- lower is better, ties in the order the loop nest met them. It is no time:
-- use it to compare ndlua's order with the one SAPP-ND's users know.
-- Sorted in C.
return {
  about = "the reference planner's relative score (SAPP-ND's order)",
  order = { "nd_score" },
}
