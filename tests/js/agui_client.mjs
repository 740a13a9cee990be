// Runs @ag-ui/client's HttpAgent against examples/web_chat's POST /api/agui (tests/test_ui_clients.py).
// stdin: {"url", "token"?, "threadId", "idPrefix"?, "steps": [{"message"?, "resume"?, "approve"?, "reason"?}]}
// (the user messages' ids are <idPrefix>-<n>, "user" by default; "tools": the browser's tools, offered with every run,
// and "browser": {name: answer} runs them: "runTools" answers the calls the last run left pending
// (RUN_FINISHED's pendingToolCallIds) with tool messages "<answer> <arguments>", "again" sends the last tool message
// once more, "toolCallId"+"content" sends a made-up one; "approve" answers
// every pending interrupt of the last run: resolved with {approved, reason?}); stdout: one JSON line
// {"runs": [{"events", "error", "result", "interrupts", "messages"}]}: what the client rebuilt.
import { HttpAgent } from "@ag-ui/client";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const plan = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
const agent = new HttpAgent({ url: plan.url, headers, threadId: plan.threadId });
const runs = [];
let n = 0;
let lastPending = [];
for (const step of plan.steps) {
  const events = [];
  let error = null;
  let result = null;
  if (step.message !== undefined) {
    n += 1;
    agent.addMessage({ id: `${plan.idPrefix ?? "user"}-${n}`, role: "user", content: step.message });
  }
  if (step.runTools) {
    for (const id of lastPending) {
      const call = agent.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === id);
      agent.addMessage({ id: `result-${id}`, role: "tool", toolCallId: id,
                         content: `${plan.browser[call.function.name]} ${call.function.arguments}` });
    }
  }
  if (step.again) { // the last tool message once more: a result for a call answered already
    const last = agent.messages.filter((m) => m.role === "tool").pop();
    agent.addMessage({ ...last, id: `${last.id}-again` });
  }
  if (step.toolCallId !== undefined) {
    agent.addMessage({ id: `result-made-up-${n}`, role: "tool", toolCallId: step.toolCallId, content: step.content });
  }
  let resume = step.resume;
  if (step.approve !== undefined) {
    const payload = step.reason === undefined ? { approved: step.approve } : { approved: step.approve, reason: step.reason };
    resume = agent.pendingInterrupts.map((interrupt) => ({ interruptId: interrupt.id, status: "resolved", payload }));
  }
  try {
    const run = await agent.runAgent({ ...(resume ? { resume } : {}), ...(plan.tools ? { tools: plan.tools } : {}) }, {
      onEvent({ event }) {
        events.push(event);
        if (event.type === "RUN_FINISHED") lastPending = event.outcome?.pendingToolCallIds ?? [];
      },
    });
    result = run.result ?? null;
  } catch (exc) {
    error = String(exc && exc.message ? exc.message : exc);
  }
  runs.push({ events, error, result, interrupts: agent.pendingInterrupts ?? [], messages: structuredClone(agent.messages) });
}
process.stdout.write(JSON.stringify({ runs }) + "\n");
