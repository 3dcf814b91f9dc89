"""Compose: the reply the user reads, in natural sentences in the user's language: the checked answer, or, in
its place, the facts themselves (when the written answer failed its check, or for a long list), what went wrong
(every call failed), or a sentence of the gateway's own; then the notices that end a reply."""

from __future__ import annotations

from dataclasses import dataclass

from mcp_chat_app.chat.facts import Facts, Failure
from mcp_chat_app.chat.notices import Notice
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.chat.verify import Check
from mcp_chat_app.chat.write import Draft


@dataclass(frozen=True)
class Reply:
    """The text the user reads, and whether a model wrote it ("model") or the gateway composed it ("composed")."""

    text: str
    source: str


def compose(turn: Turn, facts: Facts, draft: Draft, check: Check) -> Reply:
    """The reply to the turn; an answer composed in place of a rejected one is streamed out whole."""
    if draft.kind == "failed":
        return _reply(failures_only(facts, turn.language), "composed", facts)
    if check.accepted is not None:
        text = check.accepted
        if check.lacks_asked:
            text = f"{lacking_sentence(turn.language, facts.missing)}{'' if turn.language == 'zh' else ' '}{text}"
        return _reply(text, "model", facts)
    if draft.kind == "own":
        if check.fallback == "identity":
            return _reply(turn.assistant.introduction(turn.language), "composed", facts)
        own = turn.assistant.no_tools.answer if check.fallback == "no_tools" else None
        return _reply(say(turn.language, own["en"], own["zh"]) if own else cannot_answer(turn.language), "composed",
                      facts)
    composed = from_facts(facts, turn.language)
    turn.emit("token", {"text": composed})
    return _reply(composed, "composed", facts)


def _reply(answer: str, source: str, facts: Facts) -> Reply:
    return Reply(with_notices(answer.strip(), facts.notices), source)




def say(language: str, en: str, zh: str) -> str:
    """A gateway sentence in the user's language (English for languages the gateway has no words in)."""
    return zh if language == "zh" else en


def from_facts(facts: Facts, language: str) -> str:
    """The facts themselves as the answer: the verdict asked about first, then what each call found; what the
    question asks for that no result holds is said first, and only that. When they hold none of the quantities
    asked for, the answer is that limit alone: their figures would answer another question."""
    if facts.hold_nothing_asked:
        parts = [unanswered_sentence(language, facts.missing)]
    else:
        parts = [lacking_sentence(language, facts.missing)] if facts.missing else []
        if facts.lead:
            parts.append(_sentence(facts.lead, language))
        parts += [languages.capitalized(finding.readable, language) for finding in facts.findings]
    parts += [failure_sentence(failure, language) for failure in facts.failures]
    answer = (" " if language != "zh" else "").join(parts)
    return answer if language in languages.FULLY_SERVED else f"{languages.english_follows(language)} {answer}"


def lacking_sentence(language: str, missing: tuple[str, ...]) -> str:
    """Said before the facts when the question asked for more than they hold: what they lack, as it was asked."""
    return say(language, f"Sorry, the data I have does not include {', '.join(missing)}. Here is what it says:",
               f"抱歉，我查到的数据里没有{'、'.join(missing)}。以下是我查到的：")


def unanswered_sentence(language: str, missing: tuple[str, ...]) -> str:
    """The whole answer when the facts hold nothing the question asks for: what they lack, and what to ask
    instead, in words."""
    return say(language, f"Sorry, the data I have does not include {', '.join(missing)}, so I cannot answer that. "
                         "Ask me about something my tools look up, and I will check it for you.",
               f"抱歉，我查到的数据里没有{'、'.join(missing)}，所以没法回答这个问题。您可以问我工具能查到的内容，我再帮您查。")


def failures_only(facts: Facts, language: str) -> str:
    """The answer when every call failed: what went wrong, and nothing made up."""
    return (" " if language != "zh" else "").join(failure_sentence(f, language) for f in facts.failures)


def failure_sentence(failure: Failure, language: str) -> str:
    """One failed call, in the user's language: the server's own words when it gave them in that language."""
    if failure.message:
        return say(language, f"Sorry, I could not get that: {failure.message}", f"抱歉，没能查到：{failure.message}")
    if failure.reason == "denied":
        return say(language, f"You did not allow the call to {failure.tool} ({failure.server}), so I did not look "
                             "that up.", f"您没有允许调用 {failure.server} 的 {failure.tool}，所以没有查询这项数据。")
    if failure.reason == "needs_approval":  # how to allow it is the reply's `approval` notice
        return say(language, f"I did not run {failure.tool} ({failure.server}): it needs your approval first.",
                   f"我没有调用 {failure.server} 的 {failure.tool}：它需要您先批准。")
    if failure.reason == "unavailable":
        return say(language, f"Sorry, the {failure.server} service cannot be reached right now; please try again "
                             "later.", f"抱歉，{failure.server} 服务现在连接不上，请稍后再试。")
    if failure.reason == "invalid_answer":
        return say(language, f"Sorry, the answer of {failure.tool} ({failure.server}) did not match its own schema, "
                             "so I could not use it.",
                   f"抱歉，{failure.server} 的 {failure.tool} 返回的结果不符合它自己声明的格式，无法使用。")
    if failure.reason == "needs_authorization":  # the link is the reply's `authorization` notice
        return say(language, f"The {failure.server} service works on your own account: authorize it with the link "
                             "below, then ask again.", f"{failure.server} 服务使用您自己的账户：请先用下面的链接授权，然后再问一次。")
    if failure.reason == "timeout":
        return say(language, f"Sorry, the {failure.server} service did not answer in time; please try again later.",
                   f"抱歉，{failure.server} 服务没有及时响应，请稍后再试。")
    return say(language, f"Sorry, I could not get that data from the {failure.server} service.",
               f"抱歉，没能从 {failure.server} 服务取得这项数据。")


def cannot_answer(language: str) -> str:
    """The last resort when no usable answer came out at all."""
    return say(language, "Sorry, I could not produce an answer to that.", "抱歉，我现在无法回答这个问题。")


def with_notices(answer: str, notices: list[Notice]) -> str:
    """The reply with each notice (e.g. simulated data) after it, once."""
    texts = [notice.text for notice in notices if notice.text not in answer]
    return "\n\n".join([answer, *texts]) if texts else answer


def _sentence(text: str, language: str) -> str:
    if language == "zh":
        return text if text.endswith(("。", "！", "？")) else text + "。"
    return text if text.endswith((".", "!", "?")) else text + "."
