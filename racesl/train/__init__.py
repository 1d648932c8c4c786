"""Training glue: the config file, the task stream, the reward and curriculum callbacks,
and the GRPO trainer built from them. Only `trainer` and `callbacks` import torch/TRL."""
