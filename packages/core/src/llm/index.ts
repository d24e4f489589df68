export {
  chatJson,
  createLlmClientFromEnv,
  OpenAICompatibleLlmClient,
  type OpenAICompatibleLlmClientOptions,
  parseChatResponse,
  parseJsonAnswer,
} from './openai-compatible';
