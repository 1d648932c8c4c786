"""racesl tasks where researchers already look: each hub in its own module, behind its own
extra, imported only by whoever uses it (the core never imports a hub).

- hf: Hugging Face `datasets` (a saved dataset folder; a streaming IterableDataset);
- openenv: an OpenEnv environment, its FastAPI app and a Space template (the `openenv` extra);
- nemo_gym: NeMo Gym rows and a resources-server template;
- gem: a GEM environment registered as `racesl` (works under `gem.make_vec`);
- the verifiers taskset is the top-level package `racesl_tasks` (the `verifiers` extra),
  since verifiers finds a taskset by importing the module its id names.

tasks: what they all share — a library from paths, the records of a file or of an endless
compile, the gold completion of a record.
"""
