"""Who the assistant is (its name and purpose), the worked answers its writer follows, what it says with no tool
connected or when its tools could not be asked, and its domain's vocabulary: configuration (configs/assistant.json), so the gateway's code holds no
domain text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from mcp_chat_app.chat.text.vocabulary import Vocabulary, vocabulary_from_json

# A question about the assistant itself: who it is, who made it, what it is called.
# Who or what it is, who made it, what it can do: the answer is its introduction (its name and what it does).
_ASKS_WHO = re.compile(r"你是谁|你叫什么|你的名字|谁(?:开发|做|造|制作|训练)了?的?你|你是由?谁|(?:哪一?家|哪个|什么)公司"
                       r"|你是(?:什么|啥|哪个|哪家的?)(?:模型|东西|AI|机器人|大模型)|你用的?(?:是)?(?:什么|啥|哪个|哪家的?)模型|你是(?:机器人|人工智能|AI|真人|人)吗"
                       r"|介绍一下(?:你)?自己|你(?:能|会|可以)(?:做|干)(?:些)?(?:什么|啥)|你有(?:什么|哪些)功能"
                       r"|\bwho\s+(?:are|made|built|created|trained|developed)\s+you\b|\bwhat(?:'s|\s+is)\s+your\s+name\b"
                       r"|你是(?:人|真人)还是|你到底是(?:什么|谁|人|机器)|(?:我|是)在(?:和|跟)(?:真人|人|机器人?|AI)(?:聊天|说话|对话)"
                       r"|\bwhat\s+(?:exactly\s+|really\s+)?are\s+you\b(?!\s+\w+ing\b)|\bwhich\s+company\b"
                       r"|\b(?:are|r)\s+(?:you|u)\s+(?:a\s+)?(?:person|human|bot|robot|machine|real)\b"
                       r"|\b(?:am\s+i|are\s+we)\s+(?:talking|chatting|speaking)\s+(?:to|with)\s+(?:a\s+)?(?:real\s+)?"
                       r"(?:person|human|bot|robot|machine|ai)\b|\b(?:what|which)\s+(?:llm|model|ai)\s+(?:are|is|do|powers|runs)\b"
                       r"|\bare\s+you\s+(?:an?\s+)?(?:ai|bot|robot|human|real\s+person|language\s+model|llm)\b"
                       r"|\b(?:are|r)\s+(?:you|u)\s+(?:one\s+of\s+(?:those|the|them)|just|an?|some\s+(?:kind|sort)\s+of)\b"
                       r"[\w\s-]{0,30}?\b(?:ai|models?|chatbots?|bots?|llms?|assistants?)\b"
                       r"|\b(?:are|r)\s+(?:you|u)\s+(?:made|built|run|owned)\s+by\b|你是不是(?:AI|机器人|人工智能|大模型|真人)"
                       r"|\b(?:tell\s+me\s+about|introduce)\s+yourself\b|\bwhat\s+can\s+you\s+do\b(?!\s+(?:about|for|with))"
                       r"|\bwho\s+(?:am\s+i|are\s+we)\s+(?:talking|chatting|speaking)\s+(?:to|with)\b"
                       r"|\b(?:is\s+this|is\s+it|are\s+you)\s+(?:a\s+|an\s+)?(?:bot|robot|chatbot|ai|machine|human|person)\b"
                       r"|我在(?:和|跟)谁(?:聊天|说话|对话)|这是(?:机器人|AI|真人)吗"
                       # "你该不会是ChatGPT吧", "you're GPT-4, right?", "is this Gemini?": another assistant's name,
                       # said of it
                       r"|(?:你|这是|这个是|\byou(?:'re)?\b|\b(?:is|isn't)\s+(?:this|it)\b|\bthis\s+is\b"
                       r"|\b(?:am\s+i|are\s+we)\s+(?:talking|chatting|speaking)\s+(?:to|with)\b)"
                       r"[^。？?.!,，]{0,8}?(?:chat\s*gpt|\bgpt\b|\bgpt-?\d|claude|gemini|copilot|\bsiri\b|\balexa\b|"
                       r"\bbard\b|llama|qwen|通义|千问|文心|豆包|kimi|deepseek)", re.IGNORECASE)


@dataclass(frozen=True)
class WriterExample:
    """A question, the facts a tool gave for it, and the answer to write (places and figures made up); `names`:
    the example's places, which a real answer must not borrow."""

    question: str
    facts: str
    answer: str
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoTools:
    """With no tool server connected: the rule the model gets, and the answer when it made up data anyway."""

    rules: str
    answer: dict[str, str]


@dataclass(frozen=True)
class Assistant:
    """The assistant's identity, in English and Chinese, its writer's examples, and its domain's words."""

    name: dict[str, str]
    purpose: dict[str, str]
    writer_examples: tuple[WriterExample, ...]
    no_tools: NoTools
    not_looked_up: dict[str, str]  # the answer to a question its tools answer when no call could be made
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    # Models and products it must never claim to be: asked "你是ChatGPT吗？", the 1.5B model said "是的，我是来自
    # OpenAI的GPT模型。" despite its system prompt.
    other_assistants: tuple[str, ...] = ()

    @property
    def example_names(self) -> set[str]:
        return {name for example in self.writer_examples for name in example.names}

    @property
    def identity(self) -> str:
        """Who the assistant is, in both its names, so a Chinese reply uses the Chinese one."""
        return (f"You are {self.name['en']} (in Chinese: {self.name['zh']}), {self.purpose['en']}. "
                "You are not any other company's model or product.")

    def claims_to_be_another(self, text: str) -> bool:
        """Whether an answer names another company's model or product (even "not ChatGPT" puts the name in a
        user's mind; its own name is the answer)."""
        said = text.casefold()
        return any(name.casefold() in said for name in self.other_assistants)

    def asked_who(self, question: str) -> bool:
        """Whether a question asks who the assistant is or who made it ("你是哪家公司做的", "who built you?")."""
        return bool(_ASKS_WHO.search(question))

    def says_its_name(self, text: str) -> bool:
        """Whether a text names the assistant, in either language, spaced or not."""
        said = re.sub(r"\s+", "", text).casefold()
        return any(re.sub(r"\s+", "", name).casefold() in said for name in self.name.values())

    def introduction(self, language: str) -> str:
        """Who it is and what it does, from its configuration, in the user's language (English for others)."""
        if language == "zh":
            return f"我是{self.name['zh']}，{self.purpose['zh']}。"
        return f"I am {self.name['en']}, {self.purpose['en']}."


def load_assistant(path: Path) -> Assistant:
    """Read configs/assistant.json; a missing or malformed file is a start-up error naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Assistant(
            name={"en": data["name"]["en"], "zh": data["name"]["zh"]},
            purpose={"en": data["purpose"]["en"], "zh": data["purpose"]["zh"]},
            writer_examples=tuple(WriterExample(e["question"], e["facts"], e["answer"], tuple(e.get("names", [])))
                                  for e in data.get("writer_examples", [])),
            no_tools=NoTools(data["no_tools"]["rules"],
                             {"en": data["no_tools"]["answer"]["en"], "zh": data["no_tools"]["answer"]["zh"]}),
            not_looked_up={"en": data["not_looked_up"]["en"], "zh": data["not_looked_up"]["zh"]},
            vocabulary=vocabulary_from_json(data.get("vocabulary", {})),
            other_assistants=tuple(data.get("other_assistants", ())),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a valid assistant configuration ({type(error).__name__}: {error})") from error
