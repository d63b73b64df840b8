"""Labels: find the holes in the judgements, judge them without losing one, and know what the labels support.

:func:`holes`
    The unjudged documents of each system's top ``k``, most consequential first.
:func:`bounds`
    Each system's means as judged, with every hole non-relevant, with every hole
    relevant, and (where exact) the extremes over every labelling.
:class:`LabelStore`
    Judgements in one SQLite file: one committed transaction per judgement, the
    history kept, annotators kept apart; :func:`rankviz.read_qrels` reads it.
:func:`agreement`
    Cohen's kappa (unweighted, linear, quadratic), Krippendorff's alpha (nominal,
    ordinal), the confusion matrix and per-query agreement of two labellers.
:func:`stability`
    Whether the system ordering survives the other labeller: Kendall's tau, tau_AP,
    the pairs that swap, the significant differences that flip.
:func:`llm_judge`, :func:`callable_judge`
    Judges: a model behind an OpenAI-compatible chat-completions API (our own
    documented prompt, strict parsing, retries), or any Python function.
:func:`judge_pairs`
    Judge pairs into a store: each grade (or failure, with its reason) committed as
    it arrives, the pairs this judge graded before skipped; a :class:`JudgeReport`.

Labels from a model, checked against people:

:func:`simulate_judge`
    A simulated model judge (true grades plus noise and leniency) for studies without a model.
:func:`sample_queries`, :class:`Design`
    The random sample of queries people grade, with its inclusion probabilities.
:func:`alignment`, :func:`self_consistency`
    How a model judge agrees with people (confusion, kappa, alpha, leniency) and with itself.
:func:`corrected`
    Prediction-powered means and paired differences: the model everywhere, corrected by a
    random human sample, with intervals that hold.
:func:`plan`
    Which queries people should grade next, and how many a target interval width needs.

The judging widget is :func:`rankviz.widgets.judge`.
"""

from .agreement import Agreement, agreement
from .alignment import Alignment, SelfConsistency, alignment, self_consistency
from .corrected import Corrected, corrected
from .design import Design
from .holes import bounds, holes
from .judges import CallableJudge, Judge, Judgement, callable_judge
from .judging import JudgeReport, judge_pairs
from .llm import DEFAULT_PROMPT, GRADE_DEFINITIONS, LLMJudge, llm_judge, parse_grade
from .plan import Plan, plan
from .simulate import sample_queries, simulate_judge
from .stability import stability
from .store import LabelStore

__all__ = [
    "Agreement",
    "Alignment",
    "CallableJudge",
    "Corrected",
    "DEFAULT_PROMPT",
    "Design",
    "GRADE_DEFINITIONS",
    "Judge",
    "JudgeReport",
    "Judgement",
    "LLMJudge",
    "LabelStore",
    "Plan",
    "SelfConsistency",
    "agreement",
    "alignment",
    "bounds",
    "callable_judge",
    "corrected",
    "holes",
    "judge_pairs",
    "llm_judge",
    "parse_grade",
    "plan",
    "sample_queries",
    "self_consistency",
    "simulate_judge",
    "stability",
]
