export { createScrubber, safeUrl, serverMessage, summarizeText } from './error-body';
export {
  createHttpClient,
  globalFetch,
  type HttpAuth,
  HttpClient,
  type HttpClientOptions,
  type HttpRequestOptions,
  type HttpResponse,
  type QueryValue,
} from './http-client';
export {
  LOOPBACK_TIMEOUT_MS,
  type LoopbackAnswer,
  type LoopbackCallback,
  type LoopbackCallbackOptions,
  listenForLoopbackCallback,
} from './loopback-callback';
