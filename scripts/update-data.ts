// `npm run update-data [-- --data-dir DIR] [--only id,id]` (or `tsx
// scripts/update-data.ts …`): the data updater, src/cli/update-data.ts, which
// `ipintel update-data` runs too.
import { updateDataMain } from '../src/cli/update-data.js';

await updateDataMain(process.argv.slice(2), process.env);
