"""Golden sessions of every envelope and tool, replayed by test_transcripts and test_cli_envelopes."""

from __future__ import annotations

import json
from typing import Any

from tests.support.calls import question

Q = {"questions": [question("Which runtime?", "Runtime", ("Node", "Bun"))]}
STREAM = [
    {"type": "system", "subtype": "init", "session_id": "sess-1", "tools": ["Bash"]},
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Planning first."},
                {
                    "type": "tool_use",
                    "id": "toolu_01Todo",
                    "name": "TodoWrite",
                    "input": {
                        "todos": [
                            {
                                "content": "Pick a runtime",
                                "status": "in_progress",
                                "activeForm": "Picking a runtime",
                            },
                            {
                                "content": "Write the server",
                                "status": "pending",
                                "activeForm": "Writing the server",
                            },
                        ]
                    },
                },
            ],
        },
        "parent_tool_use_id": None,
        "session_id": "sess-1",
    },
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_01Ask", "name": "AskUserQuestion", "input": Q}
            ],
        },
        "parent_tool_use_id": None,
        "session_id": "sess-1",
    },
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "done",
        "session_id": "sess-1",
    },
]
CONTROL = [
    {
        "type": "control_request",
        "request_id": "req_1",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "AskUserQuestion",
            "input": Q,
            "tool_use_id": "toolu_01Ask",
        },
    },
    {
        "type": "control_request",
        "request_id": "req_2",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "Bash",
            "input": {"command": "rm -rf node_modules", "description": "Clean"},
            "tool_use_id": "toolu_01Bash",
        },
    },
    {
        "type": "control_request",
        "request_id": "req_3",
        "request": {"subtype": "hook_callback", "callback_id": "hook_1", "input": {}},
    },
]
OPENAI = [
    {
        "role": "assistant",
        "content": "I need to know one thing and run a command.",
        "tool_calls": [
            {
                "id": "call_01",
                "type": "function",
                "function": {"name": "AskUserQuestion", "arguments": json.dumps(Q)},
            },
            {
                "id": "call_02",
                "type": "function",
                "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
            },
        ],
    },
    {
        "type": "function_call",
        "id": "fc_01",
        "call_id": "call_03",
        "name": "AskUserQuestion",
        "arguments": '{"questions": [oops',
    },
]
SUGGESTED = {
    "type": "control_request",
    "request_id": "req_9",
    "request": {
        "subtype": "can_use_tool",
        "tool_name": "Bash",
        "input": {"command": "npm test -- --watch=false", "description": "Run the tests"},
        "tool_use_id": "toolu_01Test",
        "permission_suggestions": [
            {
                "type": "addRules",
                "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
                "behavior": "allow",
                "destination": "localSettings",
            }
        ],
    },
}
BASH = {
    "type": "tool_use",
    "id": "toolu_01Bash",
    "name": "Bash",
    "input": {"command": "git push --force", "description": "Publish"},
}
TODOS = [
    {
        "todos": [
            {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
            {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
            {"content": "Write a test", "status": "in_progress", "activeForm": "Writing a test"},
        ]
    },
    {
        "todos": [
            {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
            {"content": "Fix the bug", "status": "completed", "activeForm": "Fixing the bug"},
            {"content": "Write a test", "status": "completed", "activeForm": "Writing a test"},
        ]
    },
    {"todos": [{"content": "x", "status": "done", "activeForm": "x-ing"}]},
]

# name: (calls, answer lines, stderr lines, stdout lines, exit status)
TOOL_SESSIONS: dict[str, tuple[list[Any], list[str], list[str], list[str], int]] = {
    "stream_json_session": (
        STREAM,
        ["2"],
        [
            "",
            "Assistant: Planning first.",
            "",
            "Todo list (sess-1)",
            "  [>] Picking a runtime",
            "  [ ] Write the server",
            "  0/2 done",
            "",
            "[Runtime] Which runtime?   (question 1 of 1)",
            "  1. Node - about Node",
            "  2. Bun - about Bun",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3: 2",
            "",
        ],
        [
            '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Todo","content":"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"}]}}',
            '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Ask","content":"User has answered your questions: \\"Which runtime?\\"=\\"Bun\\". You can now continue with the user\'s answers in mind."}]}}',
        ],
        0,
    ),
    "control_requests": (
        CONTROL,
        ["1", "n: use npm ci instead"],
        [
            "",
            "[Runtime] Which runtime?   (question 1 of 1)",
            "  1. Node - about Node",
            "  2. Bun - about Bun",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3: 1",
            "",
            "Tool use: Bash",
            "  command: rm -rf node_modules",
            "  description: Clean",
            "  1. Yes",
            "  3. No, and tell the agent what to do instead",
            "Allow? 1 or 3 (y/n): n: use npm ci instead",
            'askcli: control requests of subtype "hook_callback" are not served (only can_use_tool and elicitation)',
            "",
        ],
        [
            '{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"behavior":"allow","updatedInput":{"questions":[{"question":"Which runtime?","header":"Runtime","options":[{"label":"Node","description":"about Node"},{"label":"Bun","description":"about Bun"}],"multiSelect":false}],"answers":{"Which runtime?":"Node"}}}}}',
            '{"type":"control_response","response":{"subtype":"success","request_id":"req_2","response":{"behavior":"deny","message":"The user doesn\'t want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\\nuse npm ci instead"}}}',
            '{"type":"control_response","response":{"subtype":"error","request_id":"req_3","error":"control requests of subtype \\"hook_callback\\" are not served (only can_use_tool and elicitation)"}}',
        ],
        1,
    ),
    "openai_chat_and_responses": (
        OPENAI,
        ["1", "y"],
        [
            "",
            "Assistant: I need to know one thing and run a command.",
            "",
            "[Runtime] Which runtime?   (question 1 of 1)",
            "  1. Node - about Node",
            "  2. Bun - about Bun",
            "  3. Other - type your own answer",
            "  (keys: 1-3 choose, ? help, q decline)",
            "Choose 1-3: 1",
            "",
            "Tool use: Bash",
            "  command: ls",
            "  1. Yes",
            "  3. No, and tell the agent what to do instead",
            "Allow? 1 or 3 (y/n): y",
            "askcli: the arguments string is not valid JSON: Expecting value: line 1 column 16 (char 15)",
            "",
        ],
        [
            '{"role":"tool","tool_call_id":"call_01","content":"User has answered your questions: \\"Which runtime?\\"=\\"Node\\". You can now continue with the user\'s answers in mind."}',
            '{"type":"permission","tool_call_id":"call_02","behavior":"allow","updatedInput":{"command":"ls"}}',
            '{"type":"function_call_output","call_id":"call_03","output":"<tool_use_error>InputValidationError: the arguments string is not valid JSON: Expecting value: line 1 column 16 (char 15)</tool_use_error>"}',
        ],
        2,
    ),
    "permission_suggestion_chosen": (
        [SUGGESTED],
        ["2"],
        [
            "",
            "Tool use: Bash",
            "  command: npm test -- --watch=false",
            "  description: Run the tests",
            "  1. Yes",
            "  2. Yes, and don't ask again for Bash(npm test *) in this project (local ",
            "     ↪ settings)",
            "  3. No, and tell the agent what to do instead",
            "Allow? 1-3 (y/n): 2",
            "",
        ],
        [
            '{"type":"control_response","response":{"subtype":"success","request_id":"req_9","response":{"behavior":"allow","updatedInput":{"command":"npm test -- --watch=false","description":"Run the tests"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test *"}],"behavior":"allow","destination":"localSettings"}]}}}'
        ],
        0,
    ),
    "fallback_allow": (
        [BASH],
        ["y"],
        [
            "",
            "Tool use: Bash",
            "  command: git push --force",
            "  description: Publish",
            "  1. Yes",
            "  3. No, and tell the agent what to do instead",
            "Allow? 1 or 3 (y/n): y",
            "",
        ],
        [
            '{"type":"permission","tool_use_id":"toolu_01Bash","behavior":"allow","updatedInput":{"command":"git push --force","description":"Publish"}}'
        ],
        0,
    ),
    "fallback_deny": (
        [BASH],
        ["n"],
        [
            "",
            "Tool use: Bash",
            "  command: git push --force",
            "  description: Publish",
            "  1. Yes",
            "  3. No, and tell the agent what to do instead",
            "Allow? 1 or 3 (y/n): n",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_01Bash","content":"The user doesn\'t want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}'
        ],
        1,
    ),
    "fallback_deny_with_words": (
        [BASH],
        ["", "open a pull request instead", "3", "open a pull request instead"],
        [
            "",
            "Tool use: Bash",
            "  command: git push --force",
            "  description: Publish",
            "  1. Yes",
            "  3. No, and tell the agent what to do instead",
            "Allow? 1 or 3 (y/n): ",
            "! type 1 or 3 (y/n), or n: TEXT",
            "Allow? 1 or 3 (y/n): open a pull request instead",
            "! type 1 or 3 (y/n), or n: TEXT",
            "Allow? 1 or 3 (y/n): 3",
            "Tell the agent what to do instead (Enter: just deny): open a pull request instead",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_01Bash","content":"The user doesn\'t want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\\nopen a pull request instead","is_error":true}'
        ],
        1,
    ),
    "todo_write_checklists": (
        TODOS,
        [],
        [
            "askcli: warning: 2 items are in progress at once; the list should have one at a time",
            "",
            "Todo list (default)",
            "  [x] Read the code",
            "  [>] Fixing the bug",
            "  [>] Writing a test",
            "  1/3 done",
            "",
            "Todo list (default): all done, cleared",
            "  [x] Read the code",
            "  [x] Fix the bug",
            "  [x] Write a test",
            "  3/3 done",
            "  ✓ completed: Fix the bug",
            "  ✓ completed: Write a test",
            "askcli: invalid TodoWrite call toolu_01TkBiH30tg18iDIbaYpXX5u: todos[0].status: Invalid enum value. Expected 'pending' | 'in_progress' | 'completed', received 'done'",
            "",
        ],
        [
            '{"type":"tool_result","tool_use_id":"toolu_016hugJryYXg8LHBYqVGsKNA","content":"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"}',
            '{"type":"tool_result","tool_use_id":"toolu_01cfNlrcDQ9tOw41oxPYkBRP","content":"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\\n\\nNOTE: You just closed out 3+ tasks and none of them was a verification step. Before writing your final summary, spawn the verification agent (subagent_type=\\"verification\\"). You cannot self-assign PARTIAL by listing caveats in your summary — only the verifier issues a verdict."}',
            '{"type":"tool_result","tool_use_id":"toolu_01TkBiH30tg18iDIbaYpXX5u","content":"<tool_use_error>InputValidationError: [\\n  {\\n    \\"received\\": \\"done\\",\\n    \\"code\\": \\"invalid_enum_value\\",\\n    \\"options\\": [\\n      \\"pending\\",\\n      \\"in_progress\\",\\n      \\"completed\\"\\n    ],\\n    \\"path\\": [\\n      \\"todos\\",\\n      0,\\n      \\"status\\"\\n    ],\\n    \\"message\\": \\"Invalid enum value. Expected \'pending\' | \'in_progress\' | \'completed\', received \'done\'\\"\\n  }\\n]</tool_use_error>","is_error":true}',
        ],
        2,
    ),
}
