/** The export canvas in a browser: `OffscreenCanvas` where there is one, else a detached `<canvas>`. */
import type { CanvasFactory } from "./model/export-png.js";
import type { Canvas2D } from "./model/render.js";

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

export const browserCanvasFactory: CanvasFactory = (width, height) => {
  if (typeof OffscreenCanvas !== "undefined") {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext("2d");
    if (context === null) throw new Error("no 2D context for the export canvas");
    return {
      context: context as unknown as Canvas2D,
      encodePng: async () => toBase64(new Uint8Array(await (await canvas.convertToBlob({ type: "image/png" })).arrayBuffer())),
    };
  }
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d");
  if (context === null) throw new Error("no 2D context for the export canvas");
  return {
    context: context as unknown as Canvas2D,
    encodePng: async () => canvas.toDataURL("image/png").slice("data:image/png;base64,".length),
  };
};
