import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocumentText } from '../src/api/openapi/document';

/**
 * `npm run docs:openapi`: writes the HTTP API's OpenAPI document to docs/openapi.json, as
 * `GET /openapi.json` serves it; test/integration/openapi.test.ts fails while the file differs.
 */
const target = path.join(__dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, openApiDocumentText());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
