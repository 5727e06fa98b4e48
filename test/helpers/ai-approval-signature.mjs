/* global process, console */
// The AI SDK's own approval signing (`ai/internal`), in a process of its own (an ES module jest cannot load): one
// JSON request in argv[2] ({ secret, approvalId, toolCallId, toolName, input, signature }), one JSON answer on
// stdout: the SDK's signature of the approval, and whether it verifies `signature`.
import { signToolApproval, verifyToolApprovalSignature } from 'ai/internal';

const request = JSON.parse(process.argv[2]);
const { signature, ...approval } = request;
console.log(
  JSON.stringify({
    signature: await signToolApproval(approval),
    verifies: await verifyToolApprovalSignature({ ...approval, signature }),
  }),
);
