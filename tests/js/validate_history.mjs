// Checks agentmsg.ui's history converters with the clients' own code (tests/test_ui_clients.py).
// stdin: {"uiMessages": [...], "snapshot": {...}}; stdout: one JSON line {"aisdk": "ok" | error, "agui": [...]}:
// the AI SDK's validateUIMessages verdict, and the messages @ag-ui/client rebuilds from the MESSAGES_SNAPSHOT.
import { validateUIMessages } from "ai";
import { AbstractAgent } from "@ag-ui/client";
import { Observable } from "rxjs";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
let aisdk = "ok";
try {
  await validateUIMessages({ messages: input.uiMessages });
} catch (exc) {
  aisdk = String(exc && exc.message ? exc.message : exc);
}

class SnapshotAgent extends AbstractAgent {
  run(run) {
    return new Observable((subscriber) => {
      subscriber.next({ type: "RUN_STARTED", threadId: run.threadId, runId: run.runId });
      subscriber.next(input.snapshot);
      subscriber.next({ type: "RUN_FINISHED", threadId: run.threadId, runId: run.runId });
      subscriber.complete();
    });
  }
}
const agent = new SnapshotAgent({ threadId: "history" });
let agui;
try {
  await agent.runAgent();
  agui = agent.messages;
} catch (exc) {
  agui = String(exc && exc.message ? exc.message : exc);
}
process.stdout.write(JSON.stringify({ aisdk, agui }) + "\n");
