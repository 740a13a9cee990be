// Runs the AI SDK's useChat core (AbstractChat, the class useChat wraps) against examples/web_chat's POST /api/aisdk,
// with a browser-side tool (tests/test_ui_clients.py). stdin: {"url", "token"?, "chatId", "ai"?, "tools", "browser",
// "texts"}: "tools" are sent in the body (the server offers them to the model), "browser": {name: answer} is what
// onToolCall answers with addToolOutput ("<answer> <input as JSON>"); sendAutomaticallyWhen
// (lastAssistantMessageIsCompleteWithToolCalls) sends the result back. stdout: one JSON line {"calls", "errors",
// "messages", "validated", "model"}: the tool calls onToolCall saw, onError's errors, the chat's messages, and what
// validateUIMessages ("ok" or its error) and convertToModelMessages make of them.
import { checkMessages } from "./check_messages.mjs";

const input = [];
for await (const chunk of process.stdin) input.push(chunk);
const plan = JSON.parse(Buffer.concat(input).toString("utf8"));
const sdk = await import(plan.ai ?? "ai");
const { AbstractChat, DefaultChatTransport, lastAssistantMessageIsCompleteWithToolCalls } = sdk;

class State { // the ChatState a UI framework keeps (React's useChat keeps it in React state)
  constructor() {
    this.messages = [];
    this.status = "ready";
    this.error = undefined;
  }
  pushMessage(message) { this.messages = this.messages.concat(message); }
  popMessage() { this.messages = this.messages.slice(0, -1); }
  replaceMessage(index, message) { this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)]; }
  snapshot(value) { return structuredClone(value); }
}

const calls = [];
const errors = [];
let n = 0;
const chat = new AbstractChat({
  id: plan.chatId,
  generateId: () => `${plan.idPrefix ?? "chat"}-${++n}`,
  state: new State(),
  transport: new DefaultChatTransport({
    api: plan.url,
    headers: plan.token ? { Authorization: `Bearer ${plan.token}` } : {},
    body: { tools: plan.tools },
  }),
  onToolCall({ toolCall }) {
    if (!(toolCall.toolName in plan.browser)) return; // the server's own tools run there
    calls.push(structuredClone(toolCall));
    // not awaited, as the AI SDK's docs say: the chat's job queue runs it after the stream's chunk
    chat.addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId,
                         output: `${plan.browser[toolCall.toolName]} ${JSON.stringify(toolCall.input)}` });
  },
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
  onError: (exc) => errors.push(String(exc && exc.message ? exc.message : exc)),
});
for (const text of plan.texts) {
  await chat.sendMessage({ text }); // resolves once the automatic request with the tool's result has ended too
}
const messages = structuredClone(chat.messages);
const { validated, model } = await checkMessages(sdk, messages);
process.stdout.write(JSON.stringify({ calls, errors, messages, validated, model }) + "\n");
