"""Task operators: turn searched chains into tasks with a prompt, an answer and the data
the reward needs. RACES (paper): sequential, parallel, sort, select. Beyond the paper:
branch (a Bool environment picks one of two chains) and loop (one environment k times).

Answers are Python literals; sort and select answer letters, and any order or selection
that reaches the target from x0 scores (the reward re-executes it).
"""

from __future__ import annotations

import functools
import math
import re
import string
from typing import Any, Callable

from racesl import templates
from racesl.catalogue import examples
from racesl.check.model import EnvSig
from racesl.operators.individual import build_individual
from racesl.operators.oneshape import OneShape
from racesl.operators.orders import accepting_orders, count_fitting, type_fit
from racesl.operators.outputs import OWN, Outputs, after, looped
from racesl.operators.rederive import latent_extra
from racesl.records import Task
from racesl.runtime.contract import canonical, parse_literal
from racesl.sample.default import NoSample
from racesl.search.engine import Chain, Search, Step
from racesl.syntax import braces
from racesl.types import layout as L
from racesl.types import types as T

LETTERS = string.ascii_uppercase
MIN_SELECTIONS = 56  # select: ordered choices of the path's length among the candidates, at least


def describe(env: EnvSig, settings: tuple) -> str:
    """The environment's description with its settings written in."""
    values = {s.name: canonical(v) for s, v in zip(env.settings, settings)}
    if not values:  # (an example's values are written as they are: racesl.syntax.braces)
        return braces.shown(env.description)
    return braces.fill(env.description, values)


def settings_dict(env: EnvSig, settings: tuple) -> dict:
    return {s.name: canonical(v) for s, v in zip(env.settings, settings)}


def example_labels(count: int) -> str:
    """The answer format shown in sort and select prompts, in letters that label no candidate
    (copying it never scores), or in words when every letter is taken."""
    free = LETTERS[count:]
    if len(free) < 2:
        return "letter, letter, ..."
    return ", ".join(free[-3:])


def _shows(prompt: str, text: str) -> bool:
    """Does `prompt` show the value written `text`: the text itself, or a Str's letters as a
    word of their own (`for pepper:`)?"""
    if text in prompt:
        return True
    if text[:1] in "'\"" and len(text) > 3:
        bare = re.escape(parse_literal(text))
        return re.search(rf"(?<![\w]){bare}(?![\w])", prompt) is not None
    return False


def answer_items(task: Task) -> list[tuple[int, str, str, tuple[str, int]]]:
    """(position, environment, output text, context) of each item a task's answer is made of,
    where a learner could guess it from the environment alone (racesl.operators.outputs):
    a sequential chain's first item (the reward is the right prefix: it bounds the rest), every
    parallel item, the end of a branch's taken arm (after its other steps), a loop's last
    state (its environment applied `size` times), an individual task's output. Sort and select
    answer letters: their guesses are bounded where they are built (orders, types)."""
    op, size = task.operator, task.size
    if op == "sequential":
        return [(0, task.chain[0], task.trace[0], OWN)]
    if op == "parallel":
        return [(k, q, t, OWN) for k, (q, t) in enumerate(zip(task.chain, task.trace))]
    if op == "branch":
        end = size if task.extra["value"] else 2 * size  # chain: the condition, then arm, then arm
        return [(0, task.chain[end], task.trace[end], after(size - 1) if size > 1 else OWN)]
    if op == "loop":
        return [(0, task.chain[0], task.trace[-1], looped(size))]
    if op == "individual":
        return [(0, task.chain[0], task.trace[0], OWN)]
    return []


def _gated(build: Callable) -> Callable:
    """An operator whose every task passes `Builder._gate`."""
    @functools.wraps(build)
    def operator(self, rng, size, quota, stats) -> Task | None:
        self._kept = set()
        task = build(self, rng, size, quota, stats)
        return None if task is None else self._gate(task, rng, stats)
    return operator


class Builder:
    def __init__(self, search: Search, tmpl: dict[str, str] | None = None):
        self.search = search
        self.envs = search.envs
        self.tmpl = dict(templates.DEFAULTS, **(tmpl or {}))
        self._loop_envs: list[str] | None = None
        self._examples: dict[str, Any] = {}
        self._kept: set = set()  # this task's items that passed the keep rule (Builder._guessable)
        self.outputs = Outputs(search)  # answers that the environment alone would give away
        self.one_shape = OneShape(search)  # sort's and select's chains (no generator: it could only come first)

    def _guessable(self, at: int, step: Step, rng, stats, ctx: tuple[str, int] = OWN) -> bool:
        """True (counted) when `step`'s output may not be item `at` of an answer made in context
        `ctx` (racesl.operators.outputs). An operator may ask early (a parallel item, before
        drawing the next; a loop, before restarting); the gate then reuses the coin, so no
        answer is thinned twice."""
        key = (at, step.env, step.text, ctx)
        if key in self._kept:
            return False
        if self.outputs.keep(self.envs[step.env], step.text, rng, ctx):
            self._kept.add(key)
            return False
        stats["guessable"] += 1
        self.search.exec.refused[step.env, "guessable"] += 1
        return True

    def _gate(self, task: Task, rng, stats) -> Task | None:
        """The one place every operator's task passes before it is returned: each item its
        answer is made of (`answer_items`) must pass the keep rule for its context, and the
        prompt must not show a generator's drawn answer (`_hiding`). None (counted) otherwise."""
        for at, q, text, ctx in answer_items(task):
            if self._guessable(at, Step(q, (), None, text, 0), rng, stats, ctx):
                return None
        return self._hiding(task, stats)

    def _hiding(self, task: Task, stats) -> Task | None:
        """`task`, or None (counted) when its prompt shows an answer a generator environment drew
        (racesl.check.generators): another step's worked example may happen to hold the drawn
        word. Tasks without a generator pass untouched."""
        for q, text in zip(task.chain, task.trace):
            if self.envs[q].source and _shows(task.prompt, text):
                stats["shown_answer"] += 1
                return None
        return task

    def describe(self, env: EnvSig, settings: tuple) -> str:
        """The description with its settings written in. Its example sentence was worked for
        the settings its author chose (`Example, with k = 6: 20 -> 14.`); here it is worked
        again for these settings (`Example: 20 -> 9.`), or left out where the example's input
        does not run under them, so the prompt never shows a case it does not mean."""
        text = describe(env, settings)
        if not env.settings:
            return text
        if env.qualname not in self._examples:
            try:
                self._examples[env.qualname] = examples.parse(env.description)
            except ValueError:
                self._examples[env.qualname] = None
        ex = self._examples[env.qualname]
        if ex is None or ex.text not in text:
            return text
        limits = self.search.cfg.filters  # the sandbox's runner with --untrusted, else the library
        runner = self.search.exec.runner or self.search.lib
        run = runner.run(env, ex.input, settings, fuel=limits.max_steps, wall=limits.wall)
        worked = (f"Example: {canonical(ex.input)} -> {canonical(run.value)}."
                  if run.ok and env.verify is None and env.generate is None else "")
        return text.replace(" " + ex.text, " " + worked if worked else "").rstrip()

    def shown(self, env: EnvSig, value, text: str, output: bool = False) -> str:
        """How a prompt shows `value` (canonical text `text`): laid out as `env`'s `@layout`
        says (racesl.types.layout), as a `templates.Block`, where the side of `env` it is on
        (its input, or with `output` its output: a sort or select target) fits the form;
        else the text. Answers are never shown this way: they stay literals."""
        form = env.layout
        if form is None or not L.fits(form, env.output if output else env.input):
            return text
        block = L.show(form, value)
        return text if block is None else templates.Block(block)

    def _step_line(self, k: int, env: EnvSig, settings: tuple) -> str:
        return f"{k}. (its input is called {env.input_name}) {self.describe(env, settings)}"

    def _seq_fields(self, chain: Chain):
        envs = [self.envs[s.env] for s in chain.steps]
        return (tuple(s.env for s in chain.steps), tuple(settings_dict(e, s.settings) for e, s in zip(envs, chain.steps)),
                tuple(s.text for s in chain.steps))

    def _run_start(self, env: EnvSig, rng, stats) -> tuple[int, Any, str, Step] | None:
        """A level, an input (and its text) and the step of `env` on it: sampled and run, or
        for a generator environment drawn (racesl.check.generators); None (counted) when
        either fails."""
        if env.source:
            lvl = self.search.level(rng)
            got = self.search.source_step(env, rng, lvl, stats)
            return None if got is None else (lvl, got[0], canonical(got[0]), got[1])
        start = self._sample_start(env, rng, stats)
        if start is None:
            return None
        lvl, x, st = start
        x_text = canonical(x)
        step = self.search.exec.run(env, x, st, False, stats, x_text)
        return None if step is None else (lvl, x, x_text, step)

    def _sample_start(self, env: EnvSig, rng, stats) -> tuple[int, Any, tuple] | None:
        """A level, an input and settings for `env`; None (counted) when it cannot be sampled."""
        lvl = self.search.level(rng)
        try:
            return lvl, self.search.lib.sample_input(env, rng, lvl), self.search.settings(env, rng, lvl)
        except NoSample:
            stats["error"] += 1
            return None

    # ------------------------------------------------------------ paper operators

    @_gated
    def sequential(self, rng, size, quota, stats) -> Task | None:
        chain = self.search.chain(rng, size, quota, stats)
        if chain is None:
            return None
        names, sets, trace = self._seq_fields(chain)
        steps = "\n".join(self._step_line(k, self.envs[s.env], s.settings) for k, s in enumerate(chain.steps, 1))
        x0 = self.shown(self.envs[chain.steps[0].env], chain.x0, chain.x0_text)
        prompt = templates.fill(self.tmpl["sequential"], x0=x0, steps=steps, count=size)
        answer = "[" + ", ".join(trace) + "]"
        extra = {"verify": True} if self.envs[names[-1]].terminal else {}
        return Task("sequential", size, names, sets, chain.x0_text, trace, prompt, answer, chain.fuel,
                    chain.level, extra)

    @_gated
    def parallel(self, rng, size, quota, stats) -> Task | None:
        items: list[tuple[EnvSig, Any, Step]] = []
        seen: set = set()
        for _ in range(size * 3):
            if len(items) == size:
                break
            self.search.set_quota(quota)
            q = next(iter(self.search.draw(rng, "all", self.search.names, 1)), None)
            if q is None:
                return None
            env = self.envs[q]
            start = self._run_start(env, rng, stats)
            if start is None:
                continue
            _, x, x_text, step = start
            if self.search.cfg.filters.repeated_state and step.text == x_text:
                stats["repeated_state"] += 1  # the answer would be a copy of the input
                continue
            if self._guessable(len(items), step, rng, stats):
                continue  # (early: another item may take its place)
            key = (q, x_text, step.text)
            if key in seen:
                stats["sibling_duplicate"] += 1
                continue
            seen.add(key)
            items.append((env, x, step))
        if len(items) < size:
            return None
        problems = "\n\n".join(
            templates.fill("Problem {k}. {description}\nInput {name} = {x}", k=k, name=env.input_name,
                           description=self.describe(env, step.settings), x=self.shown(env, x, canonical(x)))
            for k, (env, x, step) in enumerate(items, 1))
        trace = tuple(step.text for _, _, step in items)
        prompt = templates.fill(self.tmpl["parallel"], problems=problems, count=size)
        return Task("parallel", size, tuple(e.qualname for e, _, _ in items),
                    tuple(settings_dict(e, s.settings) for e, _, s in items),
                    canonical(items[0][1]), trace, prompt, "[" + ", ".join(trace) + "]",
                    sum(s.steps for _, _, s in items), 0,
                    {"inputs": [canonical(x) for _, x, _ in items],
                     **({"verify": True} if any(e.terminal for e, _, _ in items) else {}),
                     **latent_extra([s for _, _, s in items])})

    def _candidates_text(self, cands: list[tuple[EnvSig, tuple]]) -> str:
        return "\n".join(f"({LETTERS[k]}) (its input is called {e.input_name}) {self.describe(e, st)}"
                         for k, (e, st) in enumerate(cands))

    @_gated
    def sort(self, rng, size, quota, stats) -> Task | None:
        """The chain's steps under letters drawn uniformly at random, after every decision to
        keep the task (those see the steps in the chain's order, never their letters): each
        listing is as likely as any other whatever the library, so a fixed answer (the
        identity order, its reverse) is accepted, in expectation, exactly as often as a
        uniform guess. The prompt's example uses other letters.

        The chain is one of environments of one shape (racesl.operators.oneshape), and is
        kept only when the declared types allow every order of its steps (`type_order`):
        otherwise guessing among the orders the types allow beats a uniform guess."""
        if size > len(LETTERS):
            return None
        chain = self.one_shape.chain(rng, size, quota, stats)
        if chain is None:
            return None
        names, sets, trace = self._seq_fields(chain)
        target = chain.steps[-1].text
        steps = [(self.envs[s.env], s.settings) for s in chain.steps]
        lib = self.search.lib
        if not type_fit(lib, chain.x0, [e for e, _ in steps], chain.steps[-1].output, self.one_shape.link).all_fit():
            stats["type_order"] += 1  # a refinement, the start or the target rules an order out
            return None
        hits, tried = accepting_orders(lib, chain.x0, steps, target, rng)
        if hits > max(1, self.search.cfg.filters.sort_orders * tried):
            stats["sort_orders"] += 1  # the steps (mostly) commute: the order hardly matters
            return None
        perm = list(range(size))
        rng.shuffle(perm)  # candidate k is step perm[k]: the last draw, so nothing depends on it
        cands = [steps[p] for p in perm]
        label_of = {p: LETTERS[k] for k, p in enumerate(perm)}
        answer = ", ".join(label_of[p] for p in range(size))
        prompt = templates.fill(self.tmpl["sort"], x0=self.shown(self.envs[names[0]], chain.x0, chain.x0_text),
                                target=self.shown(self.envs[names[-1]], chain.output, target, output=True),
                                candidates=self._candidates_text(cands), count=size, example=example_labels(size))
        extra = {"target": target,
                 "candidates": [{"env": e.qualname, "settings": settings_dict(e, st)} for e, st in cands]}
        return Task("sort", size, names, sets, chain.x0_text, trace, prompt, answer, chain.fuel,
                    chain.level, extra)

    @_gated
    def select(self, rng, size, quota, stats) -> Task | None:
        """The path plus a number of distractors drawn from the configured range, all under
        letters shuffled uniformly."""
        lo, hi = self.search.cfg.distractors
        want = rng.randint(lo, hi)
        while math.perm(size + want, size) < MIN_SELECTIONS:
            want += 1  # short paths need more company: a guess of the path's length must rarely hit
        if size + want > len(LETTERS):
            return None
        # alternatives are met at positions 1..size-1: ask each for its share, and one more
        per_position = min(want, -(-want // max(1, size - 1)) + 1)
        chain = self.one_shape.chain(rng, size, quota, stats, want_alternatives=per_position)
        if chain is None:
            return None
        names, sets, trace = self._seq_fields(chain)
        used = set(names)
        distractors: list[Step] = []
        for _, alt in chain.alternatives:
            if alt.env not in used and len(distractors) < want:
                distractors.append(alt)
                used.add(alt.env)
        if len(distractors) < want:
            distractors += self._first_step_alternatives(chain, used, want - len(distractors), rng, stats)
        if len(distractors) < want:
            stats["no_distractor"] += 1
            return None
        if self.envs[chain.steps[0].env].source and self._skips_source(chain, distractors):
            stats["skips_source"] += 1
            return None
        pool = [(self.envs[s.env], s.settings, k) for k, s in enumerate(chain.steps)] + \
               [(self.envs[s.env], s.settings, None) for s in distractors]
        if self._typed_selections([e for e, _, _ in pool], chain, size) < MIN_SELECTIONS:
            stats["type_order"] += 1  # the declared types leave a guess too few sequences
            return None
        rng.shuffle(pool)
        label_of = {k: LETTERS[i] for i, (_, _, k) in enumerate(pool) if k is not None}
        answer = ", ".join(label_of[k] for k in range(size))
        prompt = templates.fill(self.tmpl["select"], x0=self.shown(self.envs[names[0]], chain.x0, chain.x0_text),
                                target=self.shown(self.envs[names[-1]], chain.output, chain.steps[-1].text, output=True),
                                candidates=self._candidates_text([(e, st) for e, st, _ in pool]),
                                count=len(pool), example=example_labels(len(pool)))
        extra = {"target": chain.steps[-1].text,
                 "candidates": [{"env": e.qualname, "settings": settings_dict(e, st)} for e, st, _ in pool]}
        return Task("select", size, names, sets, chain.x0_text, trace, prompt, answer, chain.fuel,
                    chain.level, extra)

    def _typed_selections(self, envs: list[EnvSig], chain: Chain, size: int) -> int:
        """How many sequences of `size` distinct candidates the declared types allow from the
        start to the target (racesl.operators.orders): what a guess that reads them faces."""
        fit = type_fit(self.search.lib, chain.x0, envs, chain.steps[-1].output, self.one_shape.link)
        count = count_fitting(fit, size)
        if count is None:  # too many candidates to count: all, or (to be safe) none
            return math.perm(len(envs), size) if fit.all_fit() else 0
        return count

    def _skips_source(self, chain: Chain, distractors: list[Step]) -> bool:
        """Could a select answer skip the generator that starts `chain` (racesl.check.generators)?
        True when a candidate run on x0 gives a value of the path (a distractor that happens to
        undo the scramble: the drawn word without unscrambling), or the path's other steps reach
        the target from x0 alone (a next step blind to what the generator changes)."""
        lib, limits = self.search.lib, self.search.cfg.filters
        runner = self.search.exec.runner or lib  # (the sandbox's with --untrusted)
        states = {s.text for s in chain.steps}

        def run(step: Step, x):
            env = self.envs[step.env]
            if lib.conforms(x, env.input) is not None:
                return None
            r = runner.run(env, x, step.settings, fuel=limits.max_steps, wall=limits.wall)
            return r.value if r.ok else None

        for step in list(chain.steps[1:]) + distractors:
            v = run(step, chain.x0)
            if v is not None and canonical(v) in states:
                return True
        v = chain.x0
        for step in chain.steps[1:]:
            v = run(step, v)
            if v is None:
                return False
        return canonical(v) == chain.steps[-1].text

    def _first_step_alternatives(self, chain: Chain, used: set, need: int, rng, stats) -> list[Step]:
        """Up to `need` more distractors: environments that could have taken the first step,
        run on x0 (their input type checked), with outputs that are no state of the path."""
        first = self.envs[chain.steps[0].env]
        pool = [q for q in self.search.starts_taking(first.input) if q in self.one_shape.same]  # (its shape)
        states = {chain.x0_text} | {s.text for s in chain.steps}
        found: list[Step] = []
        tries = need + len(used) + self.search.cfg.expansions
        for q in self.search.iter_draw(rng, ("first-one-shape", T.erase(first.input)), pool, tries):
            if q in used:
                continue
            env = self.envs[q]
            try:
                st = self.search.settings(env, rng, chain.level)
            except NoSample:
                stats["error"] += 1
                continue
            step = self.search.exec.run(env, chain.x0, st, True, stats, chain.x0_text)
            if step is None or step.text in states:
                continue
            states.add(step.text)
            used.add(q)
            found.append(step)
            if len(found) == need:
                break
        return found

    # ------------------------------------------------------------ beyond the paper

    @_gated
    def branch(self, rng, size, quota, stats) -> Task | None:
        """A Bool environment decides which of two chains (each of `size` steps) runs on x0."""
        conds = self.search.conditions
        if not conds:
            return None
        self.search.set_quota(quota)
        q = self.search.draw(rng, "conds", conds, 1)
        if not q:
            return None
        cond = self.envs[q[0]]
        starts = self.search.starts_taking(cond.input)
        if len(starts) < 1:
            return None
        start = self._sample_start(cond, rng, stats)
        if start is None:
            return None
        lvl, x0, cst = start
        stats["executions"] += 1
        r = self.search.lib.run(cond, x0, cst)
        if not r.ok:
            stats["error"] += 1
            return None
        arms = []
        for _ in range(2):
            s0 = next(iter(self.search.draw(rng, ("branch", cond.qualname), starts, 1)), None)
            if s0 is None:
                return None
            if self.search.lib.conforms(x0, self.envs[s0].input) is not None:
                stats["domain"] += 1
                return None
            arm = self.search.chain(rng, size, quota, stats, start=s0, x0=x0, level=lvl, allow_terminal_end=False)
            if arm is None:
                return None
            arms.append(arm)
        then_arm, else_arm = arms
        if then_arm.steps[-1].text == else_arm.steps[-1].text:
            stats["sibling_duplicate"] += 1
            return None
        taken = then_arm if r.value else else_arm
        x_text = canonical(x0)
        lines = lambda ch: "\n".join(self._step_line(k, self.envs[s.env], s.settings)  # noqa: E731
                                      for k, s in enumerate(ch.steps, 1))
        prompt = templates.fill(self.tmpl["branch"], x0=self.shown(cond, x0, x_text), cond_input=cond.input_name,
                                condition=self.describe(cond, cst), then_steps=lines(then_arm),
                                else_steps=lines(else_arm))
        n1, s1, t1 = self._seq_fields(then_arm)
        n2, s2, t2 = self._seq_fields(else_arm)
        extra = {"condition": {"env": cond.qualname, "settings": settings_dict(cond, cst)},
                 "value": bool(r.value), "then": list(n1), "else": list(n2)}
        return Task("branch", size, (cond.qualname,) + n1 + n2, (settings_dict(cond, cst),) + s1 + s2, x_text,
                    (canonical(r.value),) + t1 + t2, prompt, taken.steps[-1].text,
                    r.steps + then_arm.fuel + else_arm.fuel, lvl, extra)

    def _loops(self) -> list[str]:
        """Environments worth iterating: output shape = input shape, and no law that makes
        the second application pointless."""
        if self._loop_envs is None:
            self._loop_envs = [q for q in self.search.starts if not self.envs[q].source
                               and T.erase(self.envs[q].input) == T.erase(self.envs[q].output)
                               and "idempotent" not in self.envs[q].laws and "involution" not in self.envs[q].laws]
        return self._loop_envs

    @_gated
    def loop(self, rng, size, quota, stats) -> Task | None:
        """One environment (output type = input type) applied `size` times with fixed settings."""
        loops = self._loops()
        for _ in range(self.search.cfg.restarts):
            self.search.set_quota(quota)
            q = self.search.draw(rng, "loops", loops, 1)
            if not q:
                return None
            env = self.envs[q[0]]
            start = self._sample_start(env, rng, stats)
            if start is None:
                continue
            lvl, x, st = start
            x_text = canonical(x)
            states = {x_text}
            trace: list[Step] = []
            cur = x
            for k in range(size):
                step = self.search.exec.run(env, cur, st, k > 0, stats)
                if step is None:
                    break
                if step.text in states:
                    stats["repeated_state"] += 1
                    break
                states.add(step.text)
                trace.append(step)
                cur = step.output
            if len(trace) == size and not self._guessable(0, trace[-1], rng, stats, looped(size)):
                prompt = templates.fill(self.tmpl["loop"], x0=self.shown(env, x, x_text), times=size,
                                        input_name=env.input_name, description=self.describe(env, st))
                return Task("loop", size, (env.qualname,), (settings_dict(env, st),), x_text,
                            tuple(s.text for s in trace), prompt, trace[-1].text, sum(s.steps for s in trace), lvl,
                            {"times": size})
            stats["restart"] += 1
        return None


    @_gated
    def individual(self, rng, size, quota, stats) -> Task | None:
        """One environment a task (the paper's RL_individual baseline): racesl.operators.individual."""
        return build_individual(self, rng, quota, stats)


OPERATOR_BUILDERS: dict[str, Callable] = {
    name: getattr(Builder, name) for name in ("sequential", "parallel", "sort", "select", "branch", "loop",
                                              "individual")
}
