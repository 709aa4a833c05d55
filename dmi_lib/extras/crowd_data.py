"""Real crowdsourcing data sets shipped with ``dmi_lib``, loaded as long-form tables.

Every data file under ``dmi_lib/data/<name>/`` is a byte-identical copy of a file from a
public repository; each folder's ``PROVENANCE.md`` names the source repository and
commit, the paper to cite and the licence as stated, and ``dmi_lib/data/INDEX.md``
lists shapes and reference accuracies (crowd-kit 1.4.2).  :func:`load_dataset` turns
them into one common form, the long table of crowd-kit — one row per answer with
columns ``task``, ``worker``, ``label`` (and ``prediction`` where respondents also
predicted the others' answers) — ready for :func:`dmi_lib.tabular.aggregate`.

Labels, tasks and workers are kept exactly as they are in the files: labels are the
integers of the data (``temp`` uses ``{1, 2}``, ``wsd`` ``{1, 2, 3}``, the others start
at 0), and are never re-encoded.

Examples
--------
>>> list_datasets()[:3]
['bluebirds', 'dog', 'face']
>>> d = load_dataset("temp")
>>> d.answers.columns.tolist(), d.options
(['task', 'worker', 'label'], [1, 2])
>>> d.answers["task"].nunique(), len(d.answers), d.gold.size
(462, 4620, 462)
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import pandas as pd

from ..answers import factorize

__all__ = [
    "CrowdDataset",
    "HOSSEINI_TREATMENTS",
    "PRELEC_STUDIES",
    "list_datasets",
    "load_dataset",
]

#: The seven studies of Prelec, Seung & McCoy (2017), and the column(s) that identify a
#: question in each (joined with " | " to form the task id).
PRELEC_STUDIES = {
    "1a": ("state", "expt city"),
    "1b": ("state", "expt city"),
    "1c": ("state", "expt city"),
    "2": ("qname", "qtext"),
    "3": ("image",),
    "4a": ("title",),
    "4b": ("title",),
}

#: Elicitation formats of Hosseini et al. (2021): own report - prediction of the others.
HOSSEINI_TREATMENTS = {
    1: "Top-None",
    2: "Top-Top",
    3: "Top-Rank",
    4: "Rank-None",
    5: "Rank-Top",
    6: "Rank-Rank",
}

_MULTI_TASK = ("bluebirds", "dog", "face", "rte", "temp", "weather_cf", "wsd")
_NAMES = _MULTI_TASK + ("prelec2017_sp", "hosseini2021_spvoting")


@dataclass(frozen=True, repr=False, eq=False)
class CrowdDataset:
    """A crowdsourcing data set in long form.

    Attributes
    ----------
    name : str
        Folder name under ``dmi_lib/data`` (and study suffix, e.g. ``prelec2017_sp/2``).
    answers : pandas.DataFrame
        One row per answer: ``task``, ``worker``, ``label`` (the data's own values),
        and ``prediction`` where the data has one (see :func:`load_dataset`).
    gold : pandas.Series
        True label per task (index ``task``, name ``"gold"``).
    options : list
        The label values that occur in the answers or the gold, sorted.
    citation : str
        The "Paper to cite" line of the folder's ``PROVENANCE.md``, verbatim.
    provenance : str
        The full text of ``PROVENANCE.md``.
    task_options : pandas.Series or None
        Per-task option ids (tuples) when tasks have different options
        (``hosseini2021_spvoting``); otherwise None.
    """

    name: str
    answers: pd.DataFrame
    gold: pd.Series
    options: list
    citation: str
    provenance: str
    task_options: pd.Series | None = field(default=None)

    @property
    def n_tasks(self) -> int:
        return int(self.answers["task"].nunique())

    @property
    def n_workers(self) -> int:
        return int(self.answers["worker"].nunique())

    def __repr__(self) -> str:
        pred = ", with predictions" if "prediction" in self.answers else ""
        return (
            f"CrowdDataset({self.name!r}: {self.n_tasks} tasks, {self.n_workers} "
            f"workers, {len(self.answers)} answers, options {self.options}{pred})"
        )


# --------------------------------------------------------------------------- #
# Files
# --------------------------------------------------------------------------- #
def _path(*parts):
    return resources.files("dmi_lib").joinpath("data", *parts)


#: The manifest of the shipped files: ``sha256sum`` output, paths relative to data/.
_MANIFEST = "SHA256SUMS"


def _manifest() -> dict:
    """``{relative path: SHA-256 hex}`` of every shipped data file."""
    out = {}
    raw = _path(_MANIFEST).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"dmi_lib/data/{_MANIFEST} is not text (byte {exc.start} is not UTF-8): the "
            "manifest is corrupt; reinstall dmi_lib or restore the file"
        ) from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split(maxsplit=1)
        if len(parts) != 2 or not re.fullmatch(r"[0-9a-fA-F]{64}", parts[0]):
            raise ValueError(
                f"dmi_lib/data/{_MANIFEST} line {number} is not '<64 hex digits>  <path>': "
                f"{line[:80]!r}; the manifest is corrupt; reinstall dmi_lib or restore it"
            )
        out[parts[1].strip().lstrip("*")] = parts[0].lower()
    return out


def _read_bytes(*parts) -> bytes:
    """The bytes of a shipped data file, checked against its SHA-256 in the manifest
    (``dmi_lib/data/SHA256SUMS``): a changed, truncated or extended copy is refused
    with the file's name instead of loading silently."""
    rel = "/".join(parts)
    data = _path(*parts).read_bytes()
    expected = _manifest().get(rel)
    if expected is None:
        raise ValueError(
            f"data file {rel!r} is not listed in dmi_lib/data/{_MANIFEST}; "
            "the shipped data cannot be verified"
        )
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise ValueError(
            f"data file dmi_lib/data/{rel} is corrupt or modified: SHA-256 {actual} does "
            f"not match the shipped {expected} ({len(data)} bytes read); reinstall "
            "dmi_lib or restore the file"
        )
    return data


def _read_csv(*parts, **kw) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(_read_bytes(*parts)), **kw)


def _citation(provenance: str) -> str:
    m = re.search(r"\*\*Paper to cite:\*\*\s*(.+)", provenance)
    if m is None:  # every shipped PROVENANCE.md has the line; guard a broken copy
        raise RuntimeError("PROVENANCE.md has no 'Paper to cite' line")
    text = m.group(1).strip()
    if "(as for rte)" in text:  # temp and wsd refer to rte's line: use it in full
        return _citation(_read_bytes("rte", "PROVENANCE.md").decode("utf-8"))
    return text


def list_datasets() -> list:
    """Names accepted by :func:`load_dataset`, sorted.

    Examples
    --------
    >>> list_datasets()
    ['bluebirds', 'dog', 'face', 'hosseini2021_spvoting', 'prelec2017_sp', 'rte', 'temp', 'weather_cf', 'wsd']
    """
    return sorted(_NAMES)


def _gold_series(tasks, values) -> pd.Series:
    g = pd.Series(np.asarray(values), index=pd.Index(tasks, name="task"), name="gold")
    return g.sort_index()


def _per_task_gold(df: pd.DataFrame) -> pd.Series:
    """Gold (column ``gold``) repeated on every row of a task -> one value per task
    (checked constant)."""
    per_task = df.groupby("task", sort=True)["gold"]
    bad = per_task.nunique() > 1
    if bad.any():  # would mean a corrupted copy; the shipped files are consistent
        raise RuntimeError(f"gold differs between rows of task {bad.idxmax()!r}")
    return per_task.first()


# --------------------------------------------------------------------------- #
# Loaders
# --------------------------------------------------------------------------- #
def _load_zheng(name):
    # Zheng et al. (PVLDB 2017) layout: answer.csv (question,worker,answer), truth.csv.
    a = _read_csv(name, "answer.csv")
    t = _read_csv(name, "truth.csv")
    answers = a.rename(columns={"question": "task", "answer": "label"})
    gold = _gold_series(t["question"], t["truth"])
    return answers[["task", "worker", "label"]], gold


def _load_gold_per_row(name, file, **read):
    # Snow et al. (EMNLP 2008) standardised TSV, or CF.csv (no header: worker, task,
    # label, gold): the gold label is repeated on every row of its task.
    d = _read_csv(name, file, **read).rename(
        columns={"orig_id": "task", "!amt_worker_ids": "worker", "response": "label"}
    )
    return d[["task", "worker", "label"]], _per_task_gold(d)


def _load_prelec(study):
    key = str(study)
    if key not in PRELEC_STUDIES:
        raise ValueError(f"study must be one of {list(PRELEC_STUDIES)}, got {study!r}")
    d = _read_csv("prelec2017_sp", f"study{key}.csv")
    cols = list(PRELEC_STUDIES[key])
    task = d[cols].astype(str).agg(" | ".join, axis=1)
    answers = pd.DataFrame(
        {
            "task": task,
            "worker": d["subject"],
            "label": d["own"],
            "prediction": d["meta"].astype(float),
        }
    )
    gold = _per_task_gold(answers.assign(gold=d["actual"]))
    return answers, gold


def _treatments(treatment):
    if treatment is None:
        return sorted(HOSSEINI_TREATMENTS)
    items = [treatment] if isinstance(treatment, (str, int, np.integer)) else list(treatment)
    by_name = {v.lower(): k for k, v in HOSSEINI_TREATMENTS.items()}
    out = set()
    for t in items:
        # a format's name (any case) or its number (a bool is neither)
        key = by_name.get(t.lower()) if isinstance(t, str) else t
        number = isinstance(key, (int, np.integer)) and not isinstance(key, bool)
        if not number or int(key) not in HOSSEINI_TREATMENTS:
            raise ValueError(
                f"unknown treatment {t!r}: use one of {sorted(HOSSEINI_TREATMENTS)} or "
                f"their names {list(HOSSEINI_TREATMENTS.values())}, or None for all"
            )
        out.add(int(key))
    if not out:
        raise ValueError("treatment is an empty list; use None for all treatments")
    return sorted(out)


def _load_hosseini(treatment):
    d = _read_csv("hosseini2021_spvoting", "question_responses.csv")
    d = d[d["treatment"].isin(_treatments(treatment))]
    # Each response is "[[own], [prediction]]": a top choice or a full ranking each,
    # an empty list when the format did not elicit it.  The first entry is the top.
    resp = d["response"].map(json.loads)
    own = resp.map(lambda r: r[0][0])
    pred = resp.map(lambda r: r[1][0] if r[1] else None)
    task = d["domain"].astype(str) + ":" + d["question"].map("{:02d}".format)
    answers = pd.DataFrame(
        {
            "task": task,
            "worker": d["workerId"],
            "label": own.astype(np.int64),
            "prediction": pd.array(pred.tolist(), dtype="Int64"),
            "treatment": d["treatment"],
        }
    ).reset_index(drop=True)
    if answers["prediction"].isna().all():
        answers = answers.drop(columns="prediction")
    opts = d.assign(task=task).groupby("task", sort=True)["options"].first()
    task_options = opts.map(lambda s: tuple(json.loads(s))).rename("options")
    # GOTCHA: the true top alternative is options[0] of every question (checked
    # against the `correct` column in PROVENANCE.md); the list is also sorted, so the
    # truth is the *smallest* id.  Gold is derived here and nowhere else.
    gold = _gold_series(task_options.index, [o[0] for o in task_options])
    # Option ids are question-specific: tabular.aggregate refuses multi-task methods.
    answers.attrs["label_space"] = "per-task"
    return answers, gold, task_options


def load_dataset(name: str, *, study=None, treatment=None) -> CrowdDataset:
    """Load a shipped crowdsourcing data set as a long table plus gold.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`:

        ``"dog"``, ``"face"``, ``"bluebirds"``, ``"rte"``, ``"temp"``, ``"wsd"``, ``"weather_cf"``
            Multi-task label data: columns ``task``, ``worker``, ``label``.
            ``"dog"``, ``"face"``: 4 classes, 0..3; ``"bluebirds"``, ``"rte"``:
            binary, 0/1; ``"temp"``: binary, labels 1/2; ``"wsd"``: 3 senses, labels
            1/2/3; ``"weather_cf"``: 5 classes, 0..4, sparse.
        ``"prelec2017_sp"``
            Prelec, Seung & McCoy (2017), one ``study`` at a time.  ``label`` is the
            binary vote (``own``), ``prediction`` (float) the respondent's predicted
            fraction of the others voting 1 (``meta``).  The task id is the study's
            question-id column(s) joined with ``" | "`` (e.g. ``"Alabama |
            Birmingham"``).  Every respondent answers (almost) every question, so
            this is also multi-task data.
        ``"hosseini2021_spvoting"``
            Hosseini, Mandal, Shah & Shi (2021): 60 questions with 4 alternatives
            each; a task id is ``"<domain>:<question>"`` (e.g. ``"1:02"``).  ``label``
            is the respondent's top choice (the first entry of a ranking in the
            "Rank-*" formats) as an **option id**, ``prediction`` (nullable ``Int64``)
            the predicted top choice of the others where the format elicited one
            (``<NA>`` in Top-None / Rank-None), and ``treatment`` the format (1-6,
            see :data:`HOSSEINI_TREATMENTS`).
    study : {"1a", "1b", "1c", "2", "3", "4a", "4b"}
        Required for ``"prelec2017_sp"`` (ints 2 and 3 are accepted).
    treatment : int, str, list of them, or None
        Hosseini formats to keep (e.g. ``2`` or ``"Top-Top"``); None keeps all six.

    Returns
    -------
    CrowdDataset

    Raises
    ------
    ValueError
        Unknown ``name``, ``study`` or ``treatment``, or a ``study``/``treatment``
        given for a data set that has none.

    Notes
    -----
    **Hosseini gold leak.**  The true top alternative is ``options[0]`` of every
    question, and every ``options`` list is sorted, so the truth is always the
    question's *smallest* option id.  Gold is therefore derived only for
    :attr:`CrowdDataset.gold`; the answers keep the option ids themselves, never
    positions.  But any rule that prefers small ids leaks the truth — in particular
    plurality with ``ties="first"`` (lowest label) — so aggregate this data set with
    ``ties="random"`` (see :func:`dmi_lib.tabular.aggregate`).  Option ids differ
    between questions (:attr:`CrowdDataset.task_options`), so this is single-task
    data: the multi-task methods (surprisingly popular with a shared prior, DMI)
    are not meaningful on it.  With ``treatment=None`` a worker can appear twice
    for one question (two formats): 464 duplicated ``(task, worker)`` pairs.  Six
    Top-None answers (domain 3) name a top choice that is not among the question's
    options; they are kept as they are in the file.

    Examples
    --------
    >>> d = load_dataset("prelec2017_sp", study="1a")
    >>> d.answers.columns.tolist()
    ['task', 'worker', 'label', 'prediction']
    >>> print(d.answers.head(2).to_string())
                       task  worker  label  prediction
    0  Alabama | Birmingham       1      0         0.6
    1  Alabama | Birmingham       2      0         0.5
    >>> int(d.gold["Alabama | Birmingham"])  # Birmingham is not the capital
    0
    >>> h = load_dataset("hosseini2021_spvoting", treatment="Top-Top")
    >>> h.n_tasks, len(h.answers), h.task_options["1:02"]
    (60, 1200, (3, 9, 15, 21))
    """
    if not isinstance(name, str) or name not in _NAMES:
        raise ValueError(f"unknown data set {name!r}; valid names: {list_datasets()}")
    if study is not None and name != "prelec2017_sp":
        raise ValueError(f"study= applies only to 'prelec2017_sp', not {name!r}")
    if treatment is not None and name != "hosseini2021_spvoting":
        raise ValueError(f"treatment= applies only to 'hosseini2021_spvoting', not {name!r}")
    provenance = _read_bytes(name, "PROVENANCE.md").decode("utf-8")
    # every loader returns answers with a RangeIndex (0..n-1, one row per answer)
    task_options = None
    label = name
    if name in ("dog", "face", "bluebirds"):
        answers, gold = _load_zheng(name)
    elif name in ("rte", "temp", "wsd"):
        answers, gold = _load_gold_per_row(name, f"{name}.standardized.tsv", sep="\t")
    elif name == "weather_cf":
        columns = ["worker", "task", "label", "gold"]
        answers, gold = _load_gold_per_row(name, "CF.csv", header=None, names=columns)
    elif name == "prelec2017_sp":
        if study is None:
            raise ValueError(f"'prelec2017_sp' needs study=, one of {list(PRELEC_STUDIES)}")
        answers, gold = _load_prelec(study)
        label = f"{name}/{study}"
    else:
        answers, gold, task_options = _load_hosseini(treatment)
    if task_options is None:  # the answer tables' own ordering rule, so options line up
        options = factorize(pd.concat([answers["label"], gold], ignore_index=True))[1].tolist()
    else:
        options = sorted({o for opts in task_options for o in opts})
    return CrowdDataset(
        name=label,
        answers=answers,
        gold=gold,
        options=options,
        citation=_citation(provenance),
        provenance=provenance,
        task_options=task_options,
    )
