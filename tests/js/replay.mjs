// Replays what agentmsg.ui's translators sent through the official clients' own reducers (tests/test_ui_replay.py).
// stdin: {"ai": "ai" | "ai7", "aisdk": [{"chunks": [...], "approve"?: bool, "reason"?}], "agui": [{"events": [...],
// "approve"?: bool, "reason"?}]}: the streams (AI SDK) and runs (AG-UI) of one conversation, in order; "approve"
// answers the approval requests / interrupts of what came before, as the client's user would.
// stdout: one JSON line {"aisdk": {"invalid", "errors", "messages", "validated", "model"},
// "agui": {"error", "messages", "interrupts"}}: the chunks uiMessageChunkSchema refuses, the UIMessages
// readUIMessageStream rebuilt, what validateUIMessages says ("ok" or its error) and convertToModelMessages makes of
// them; and the messages @ag-ui/client's AbstractAgent.runAgent (verifyEvents included) ends with.
import { AbstractAgent } from "@ag-ui/client";
import { Observable } from "rxjs";

const input = [];
for await (const chunk of process.stdin) input.push(chunk);
const plan = JSON.parse(Buffer.concat(input).toString("utf8"));
const ai = await import(plan.ai ?? "ai");
const message = (exc) => String(exc && exc.message ? exc.message : exc);

async function replayAiSdk(streams) {
  const schema = typeof ai.uiMessageChunkSchema === "function" ? ai.uiMessageChunkSchema() : ai.uiMessageChunkSchema;
  const messages = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Go" }] }];
  const invalid = [];
  const errors = [];
  for (const step of streams) {
    const last = messages[messages.length - 1];
    if (step.approve !== undefined) {
      for (const part of last.parts) {
        if (part.state === "approval-requested") {
          part.state = "approval-responded";
          part.approval = { id: part.approval.id, approved: step.approve, ...(step.reason == null ? {} : { reason: step.reason }) };
        }
      }
    }
    for (const chunk of step.chunks) {
      const verdict = await schema.validate(chunk);
      if (!verdict.success) invalid.push({ chunk, error: String(verdict.error) });
    }
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of step.chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let rebuilt;
    for await (const m of ai.readUIMessageStream({
      message: last.role === "assistant" ? last : undefined,
      stream,
      onError: (exc) => errors.push(message(exc)),
    })) {
      rebuilt = m;
    }
    if (rebuilt) {
      rebuilt = structuredClone(rebuilt);
      if (last.id === rebuilt.id) messages[messages.length - 1] = rebuilt;
      else messages.push(rebuilt);
    }
  }
  let validated = "ok";
  let model = null;
  try {
    await ai.validateUIMessages({ messages });
  } catch (exc) {
    validated = message(exc);
  }
  try {
    model = await ai.convertToModelMessages(messages);
  } catch (exc) {
    model = { error: message(exc) };
  }
  return { invalid, errors, messages, validated, model };
}

class ReplayAgent extends AbstractAgent {
  constructor(runs) {
    super({ threadId: "replay" });
    this.runs = runs;
    this.index = 0;
  }

  run(input) {
    const events = this.runs[this.index++].events.map((event) =>
      event.type === "RUN_STARTED" || event.type === "RUN_FINISHED" ? { ...event, threadId: input.threadId, runId: input.runId } : event);
    return new Observable((subscriber) => {
      for (const event of events) subscriber.next(event);
      subscriber.complete();
    });
  }
}

async function replayAgui(runs) {
  const agent = new ReplayAgent(runs);
  agent.addMessage({ id: "u1", role: "user", content: "Go" });
  let error = null;
  for (const step of runs) {
    let resume;
    if (step.approve !== undefined) {
      const payload = step.reason == null ? { approved: step.approve } : { approved: step.approve, reason: step.reason };
      resume = agent.pendingInterrupts.map((interrupt) => ({ interruptId: interrupt.id, status: "resolved", payload }));
    }
    try {
      await agent.runAgent(resume ? { resume } : {});
    } catch (exc) {
      error = message(exc);
      break;
    }
  }
  return { error, messages: structuredClone(agent.messages), interrupts: agent.pendingInterrupts ?? [] };
}

const out = {};
if (plan.aisdk) out.aisdk = await replayAiSdk(plan.aisdk);
if (plan.agui) out.agui = await replayAgui(plan.agui);
process.stdout.write(JSON.stringify(out) + "\n");
