"""Helpers the test packages share, and no tests: the stdlib and toy libraries, small cached
compiles and the re-execution oracle (`tasks`), the chunked golden files (`golden`), the
bodies the runtime and lowering tests run (`typical_corpus`, `tricky`), the libraries the
signature-graph tests draw (`signatures`). The test packages mirror racesl's layout; what
is not a test module lives here. Data files stay in tests/fixtures/."""
