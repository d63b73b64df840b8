import rankviz, warnings
warnings.simplefilter("ignore")
run, qrels, queries = rankviz.datasets.load_example()
s = rankviz.summary(run, qrels, by="query_length", queries=queries, rng=0, n_resamples=500)
print(s.round(3).iloc[:, :6]); print(s.index.names)
sub = s.loc[("bm25", s.index.get_level_values(1)[0])]
print(sub.iloc[:4])
