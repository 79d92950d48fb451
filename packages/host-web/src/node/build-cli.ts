// `npm run build -w @lineup/host-web`: the Vite production build into dist/.
import { buildHost } from "./build.js";

const outDir = await buildHost();
console.log(`built the host into ${outDir}`);
