// What the AI SDK's own checks make of a chat's messages: validateUIMessages ("ok" or its error) and, when they
// pass, convertToModelMessages (the messages a model would get). Shared by aisdk_client.mjs and aisdk_chat.mjs.
export async function checkMessages(sdk, messages) {
  try {
    await sdk.validateUIMessages({ messages });
    return { validated: "ok", model: await sdk.convertToModelMessages(messages) };
  } catch (exc) {
    return { validated: String(exc && exc.message ? exc.message : exc), model: null };
  }
}
