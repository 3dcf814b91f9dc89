"""Answers composed without a model, in natural sentences in the user's language: from the facts when the
written answer failed its check, for failed calls, and for a gateway with nothing to ask; plus the notices
that end a reply."""

from __future__ import annotations

from mcp_chat_app.chat import languages
from mcp_chat_app.chat.facts import Facts, Failure, Notice
from mcp_chat_app.chat.verify import is_yes_no_question, relevant_verdicts

# Said when a question is in a language the assistant cannot yet answer in: the answer follows in English.
_ENGLISH_FOLLOWS = {
    "ja": "（日本語でうまくお答えできないため、英語でお答えします。）",
    "ko": "(한국어로 답변드리기 어려워 영어로 답변드립니다.)",
    "fr": "(Je ne peux pas encore répondre en français ; voici la réponse en anglais.)",
    "de": "(Ich kann noch nicht auf Deutsch antworten; hier ist die Antwort auf Englisch.)",
    "es": "(Todavía no puedo responder en español; aquí está la respuesta en inglés.)",
    "it": "(Non posso ancora rispondere in italiano; ecco la risposta in inglese.)",
    "pt": "(Ainda não consigo responder em português; segue a resposta em inglês.)",
    "ru": "(Пока я не могу ответить по-русски, поэтому отвечаю по-английски.)",
}


def say(language: str, en: str, zh: str) -> str:
    """A gateway sentence in the user's language (English for languages the gateway has no words in)."""
    return zh if language == "zh" else en


def english_follows(language: str) -> str:
    """The note before an English answer to a question in another language."""
    return _ENGLISH_FOLLOWS.get(language, "(I cannot answer in your language yet, so here is the answer in English.)")


def lead(facts: Facts, question: str, language: str, context: str = "") -> str:
    """What the answer must begin with: the verdict a yes/no question or a comparison asks for ("" if none)."""
    verdicts = relevant_verdicts(question, facts.verdicts, context)
    yes_no = [v for v in verdicts if isinstance(v.get("holds"), bool)]
    if yes_no and is_yes_no_question(question) and len({v["holds"] for v in yes_no}) == 1:
        return _capitalized(yes_no[0]["statement"], language)
    winners = [v for v in verdicts if v.get("winner")]
    return _capitalized(winners[0]["statement"], language) if winners else ""


def from_facts(facts: Facts, question: str, language: str, context: str = "", lacking: bool = False) -> str:
    """The facts themselves as the answer: the verdict asked about first, then what each call found. `lacking`:
    the question asks for something the facts do not hold (a written answer kept making it up), said first."""
    parts = [lacking_sentence(language)] if lacking else []
    first = lead(facts, question, language, context)
    if first:
        parts.append(_sentence(first, language))
    parts += [_capitalized(finding.readable, language) for finding in facts.findings]
    parts += [failure_sentence(failure, language) for failure in facts.failures]
    answer = (" " if language != "zh" else "").join(parts)
    return answer if language in languages.FULLY_SERVED else f"{english_follows(language)} {answer}"


def lacking_sentence(language: str) -> str:
    """Said before the facts when the question asked for more than they hold."""
    return say(language, "Sorry, I don't have that exact information. Here is what I have:",
               "抱歉，问题里问的具体数据我查不到。以下是我查到的：")


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
    if failure.reason == "unavailable":
        return say(language, f"Sorry, the {failure.server} service cannot be reached right now; please try again "
                             "later.", f"抱歉，{failure.server} 服务现在连接不上，请稍后再试。")
    if failure.reason == "timeout":
        return say(language, f"Sorry, the {failure.server} service did not answer in time; please try again later.",
                   f"抱歉，{failure.server} 服务没有及时响应，请稍后再试。")
    return say(language, f"Sorry, I could not get that data from the {failure.server} service.",
               f"抱歉，没能从 {failure.server} 服务取得这项数据。")


def no_tools(language: str) -> str:
    """The answer to a question that needs data when no tool server is connected."""
    return say(language, "Sorry, no data service is connected right now, so I cannot look up live data such as "
                         "the weather.", "抱歉，现在没有连接任何数据服务，我查不到天气之类的实时数据。")


def cannot_answer(language: str) -> str:
    """The last resort when no usable answer came out at all."""
    return say(language, "Sorry, I could not produce an answer to that.", "抱歉，我现在无法回答这个问题。")


def with_notices(answer: str, notices: list[Notice]) -> str:
    """The reply with each notice (e.g. simulated data) after it, once."""
    texts = [notice.text for notice in notices if notice.text not in answer]
    return "\n\n".join([answer, *texts]) if texts else answer


def _capitalized(statement: str, language: str) -> str:
    text = statement.strip()
    return text if language == "zh" else text[:1].upper() + text[1:]


def _sentence(text: str, language: str) -> str:
    if language == "zh":
        return text if text.endswith(("。", "！", "？")) else text + "。"
    return text if text.endswith((".", "!", "?")) else text + "."
