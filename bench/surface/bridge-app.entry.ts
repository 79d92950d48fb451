/**
 * The sandboxed app of the bridge round-trip bench: the real surface SDK, connected through the real
 * handover, declares itself ready and then times `sessionData.get()` calls (one bridge request each,
 * validated on both sides) when the suite asks.
 */
import { connectSurface } from "@lineup/surface-sdk";
import { exposeFrameBench, timeCalls } from "./shared.js";

void (async () => {
  const surface = await connectSurface({ applyTheme: false });
  await surface.lifecycle.ready();
  exposeFrameBench({ run: (calls) => timeCalls(calls, () => surface.sessionData.get()) });
})();
