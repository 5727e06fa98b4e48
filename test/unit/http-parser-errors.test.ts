import { clientErrorAnswer } from '../../src/http/parser-errors';

describe('clientErrorAnswer', () => {
  test("maps Node's parser errors to the API's codes, naming what was wrong with the bytes", () => {
    expect(clientErrorAnswer({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })).toMatchObject({
      statusCode: 408,
      code: 'request_timeout',
    });
    expect(clientErrorAnswer({ code: 'HPE_HEADER_OVERFLOW' })).toMatchObject({
      statusCode: 431,
      code: 'headers_too_large',
    });
    const invalid = clientErrorAnswer({ code: 'HPE_INVALID_HEADER_TOKEN', reason: 'Invalid header value char' });
    expect(invalid).toMatchObject({ statusCode: 400, code: 'bad_request' });
    expect(invalid.message).toContain('Invalid header value char');
    expect(clientErrorAnswer({}).message).toContain('malformed request');
  });
});
