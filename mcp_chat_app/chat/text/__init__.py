"""Text helpers of the chat stages: day words, clock times, languages, what a text claims, how a tool result reads,
and the domain's vocabulary they are given."""
