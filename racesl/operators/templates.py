"""Default prompt templates, one per operator (`str.format` fields). A project overrides
any of them in races.toml:

    [templates]
    sequential = "prompts/sequential.txt"
"""

SEQUENTIAL = """\
You are given an input value and a list of operations. Apply the operations in order: each one takes the result of the previous one as its input.

Input: {x0}

Operations:
{steps}

Give the result of every operation, in order, as a Python list inside <answer></answer>, for example <answer>[result_1, result_2, ...]</answer>."""

PARALLEL = """\
Solve each of the following independent problems.

{problems}

Give the {count} answers in order as a Python list inside <answer></answer>, for example <answer>[answer_1, answer_2, ...]</answer>."""

SORT = """\
Start from the input {x0}. The operations below, applied one after another in some order (each to the result of the previous one), turn it into {target}. They are listed in shuffled order.

{candidates}

Find an order of all {count} operations that turns {x0} into {target}. Answer with the letters in that order, separated by commas, inside <answer></answer>: the format is <answer>{example}</answer>, with your letters in place of those."""

SELECT = """\
Start from the input {x0}. Choose some of the operations below and apply them one after another, each to the result of the previous one, to turn the input into {target}. Use each chosen operation at most once; not every operation is needed.

{candidates}

Answer with the letters of the operations you apply, in order, separated by commas, inside <answer></answer>: the format is <answer>{example}</answer>, with your letters in place of those."""

BRANCH = """\
Let x = {x0}.

Condition (its input is called {cond_input}): {condition}

If the condition is true for x, apply these operations to x in order, each to the result of the previous one:
{then_steps}

Otherwise apply these operations to x in order:
{else_steps}

Give the final result inside <answer></answer>."""

LOOP = """\
Start from {x0}. Apply the operation below {times} times, each time to the result of the previous application.

Operation (its input is called {input_name}): {description}

Give the final result inside <answer></answer>."""

DEFAULTS = {"sequential": SEQUENTIAL, "parallel": PARALLEL, "sort": SORT, "select": SELECT,
            "branch": BRANCH, "loop": LOOP}
