"""ChatML with function calling, for ChatML models whose own template cannot show tools.

Tool calls use the <tool_call>/<tool_response> tags Qwen2.5 was trained on, so one parser reads
the output of every model we serve. Every piece of text is an explicit string expression because
transformers renders templates with ``trim_blocks``, which eats newlines after block tags.
"""

CHATML_TOOLS_TEMPLATE = r"""
{%- if messages and messages[0].role == 'system' %}
    {%- set system_text = messages[0].content %}
    {%- set rest = messages[1:] %}
{%- else %}
    {%- set system_text = 'You are a helpful assistant.' %}
    {%- set rest = messages %}
{%- endif %}
{{- '<|im_start|>system\n' + system_text }}
{%- if tools %}
    {{- '\n\n# Tools\n\nYou can call functions to answer the user. Their signatures are inside <tools></tools>:\n<tools>' }}
    {%- for tool in tools %}
        {{- '\n' + (tool | tojson) }}
    {%- endfor %}
    {{- '\n</tools>\n\nTo call a function, answer with one JSON object per call, each inside <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' }}
{%- endif %}
{{- '<|im_end|>\n' }}
{%- for message in rest %}
    {%- if message.role == 'tool' %}
        {%- if loop.first or rest[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' + message.content + '\n</tool_response>' }}
        {%- if loop.last or rest[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- else %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for call in message.tool_calls or [] %}
            {%- set call = call.function if call.function is defined else call %}
            {{- '\n<tool_call>\n{"name": ' + (call.name | tojson) + ', "arguments": ' + (call.arguments | tojson) + '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"""
