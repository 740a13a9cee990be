// Runs the AI SDK's DefaultChatTransport + readUIMessageStream against examples/web_chat's POST /api/aisdk
// (tests/test_ui_clients.py). stdin: {"url", "token"?, "chatId", "ai"?, "idPrefix"?, "load"?, "steps": [{"text"?,
// "image"?, "approve"?, "reason"?, "abortAfter"?, "forge"?}]} ("ai" names the package: "ai" (6.x, the default) or
// "ai7"; the user messages' ids are <idPrefix>-<n>; "load" starts from the stored chat (GET <url>?id=<chatId>, as a
// new tab would); "forge" changes what this one request sends: {"index", "part"?, "set"} merges "set" into
// messages[index] (or its parts[part]), {"index", "insert"} puts a message there; "approve" answers the
// approval requests of the last assistant message; "abortAfter" aborts the request once that many chunks came, as
// useChat's stop() does);
// stdout: one JSON line {"turns": [{"chunks", "invalid", "errors", "message"}], "messages", "validated", "model"}:
// every chunk as received, the ones uiMessageChunkSchema refuses, the UIMessage the client rebuilt, and what the
// SDK's own validateUIMessages ("ok" or its error) and convertToModelMessages make of the final messages.
import { checkMessages } from "./check_messages.mjs";

const input = [];
for await (const chunk of process.stdin) input.push(chunk);
const plan = JSON.parse(Buffer.concat(input).toString("utf8"));
const sdk = await import(plan.ai ?? "ai");
const { DefaultChatTransport, readUIMessageStream, uiMessageChunkSchema } = sdk;
const schema = typeof uiMessageChunkSchema === "function" ? uiMessageChunkSchema() : uiMessageChunkSchema;
const transport = new DefaultChatTransport({
  api: plan.url,
  headers: plan.token ? { Authorization: `Bearer ${plan.token}` } : {},
});
const messages = [];
if (plan.load) {
  const response = await fetch(`${plan.url}?id=${encodeURIComponent(plan.chatId)}`, {
    headers: plan.token ? { Authorization: `Bearer ${plan.token}` } : {},
  });
  messages.push(...(await response.json()).messages);
}
const loaded = structuredClone(messages);
const turns = [];
let n = 0;
for (const step of plan.steps) {
  if (step.text !== undefined || step.image !== undefined) {
    n += 1;
    const parts = [];
    if (step.text !== undefined) parts.push({ type: "text", text: step.text });
    if (step.image !== undefined) parts.push({ type: "file", mediaType: step.image.mediaType, url: step.image.url });
    messages.push({ id: `${plan.idPrefix ?? "user"}-${n}`, role: "user", parts });
  } else if (step.approve !== undefined) {
    const last = messages[messages.length - 1];
    for (const part of last.parts) {
      if (part.state === "approval-requested") {
        part.state = "approval-responded";
        part.approval = { id: part.approval.id, approved: step.approve, reason: step.reason };
      }
    }
  }
  let sent = messages;
  if (step.forge !== undefined) {
    sent = structuredClone(messages);
    const { index, part, set, insert } = step.forge;
    if (insert !== undefined) sent.splice(index, 0, insert);
    else if (part !== undefined) Object.assign(sent[index].parts[part], set);
    else Object.assign(sent[index], set);
  }
  const chunks = [];
  const invalid = [];
  const errors = [];
  const abort = new AbortController();
  let message;
  try {
    const stream = await transport.sendMessages({
      trigger: step.trigger ?? "submit-message",
      chatId: plan.chatId,
      messageId: undefined,
      messages: sent,
      abortSignal: abort.signal,
    });
    const checked = stream.pipeThrough(new TransformStream({
      async transform(chunk, controller) {
        chunks.push(chunk);
        if (step.abortAfter !== undefined && chunks.length >= step.abortAfter) abort.abort();
        const verdict = await schema.validate(chunk);
        if (!verdict.success) invalid.push({ chunk, error: String(verdict.error) });
        controller.enqueue(chunk);
      },
    }));
    const last = messages[messages.length - 1];
    for await (const rebuilt of readUIMessageStream({
      message: last.role === "assistant" ? last : undefined,
      stream: checked,
      onError: (exc) => errors.push(String(exc && exc.message ? exc.message : exc)),
    })) {
      message = rebuilt;
    }
  } catch (exc) {
    errors.push(String(exc && exc.message ? exc.message : exc));
  }
  if (!message && step.forge !== undefined && messages[messages.length - 1].role === "user") {
    messages.pop(); // refused: the client keeps what it had
  }
  if (message) {
    message = structuredClone(message);
    if (messages.length && messages[messages.length - 1].id === message.id) messages[messages.length - 1] = message;
    else messages.push(message);
  }
  turns.push({ chunks, invalid, errors, message: message ? structuredClone(message) : null });
}
const { validated, model } = await checkMessages(sdk, messages);
process.stdout.write(JSON.stringify({ loaded, turns, messages, validated, model }) + "\n");
