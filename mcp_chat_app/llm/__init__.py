"""The LLM side: the OpenAI-compatible client, model profiles, the text tool-call parser, the health watch."""
