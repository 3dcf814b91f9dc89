"""Who the assistant is (its name and purpose) and the worked answers its writer follows: configuration
(configs/assistant.json), so the gateway's code holds no domain text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WriterExample:
    """A question, the facts a tool gave for it, and the answer to write (places and figures made up); `names`:
    the example's places, which a real answer must not borrow."""

    question: str
    facts: str
    answer: str
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assistant:
    """The assistant's identity, in English and Chinese, and its writer's examples."""

    name: dict[str, str]
    purpose: dict[str, str]
    writer_examples: tuple[WriterExample, ...]

    @property
    def example_names(self) -> set[str]:
        return {name for example in self.writer_examples for name in example.names}


def load_assistant(path: Path) -> Assistant:
    """Read configs/assistant.json; a missing or malformed file is a start-up error naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Assistant(
            name={"en": data["name"]["en"], "zh": data["name"]["zh"]},
            purpose={"en": data["purpose"]["en"], "zh": data["purpose"]["zh"]},
            writer_examples=tuple(WriterExample(e["question"], e["facts"], e["answer"], tuple(e.get("names", [])))
                                  for e in data.get("writer_examples", [])),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a valid assistant configuration ({type(error).__name__}: {error})") from error
