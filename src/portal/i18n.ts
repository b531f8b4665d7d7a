import Negotiator from 'negotiator';

/** The languages the portal speaks (BCP 47 primary tags), the first being the default. */
export const PORTAL_LANGUAGES = ['en', 'es', 'pt'] as const;

/** One of {@link PORTAL_LANGUAGES}. */
export type PortalLanguage = (typeof PORTAL_LANGUAGES)[number];

/** The language shown when neither `?lang=` nor `Accept-Language` names one the portal speaks. */
export const DEFAULT_LANGUAGE: PortalLanguage = 'en';

/** Every text of the portal in English; the other tables have the same keys. */
const EN = {
  languageName: 'English',
  languageLabel: 'Language',
  pageTitle: 'Plans for your line',
  greeting: 'Buy a plan while you roam',
  number: 'Number',
  balance: 'Balance',
  status: 'Line status',
  'status.ACTIVE': 'Active',
  'status.INACTIVE': 'Inactive',
  'status.SUSPENDED': 'Suspended',
  offersHeading: 'Plans on offer',
  plansHeading: 'Your plans',
  noOffers: 'No plans are on offer right now.',
  noPlans: 'You have no plans yet.',
  buy: 'Buy',
  buyNamed: 'Buy {name} for {price}',
  buying: 'Buying…',
  bought: '{name} is now active.',
  price: 'Price',
  quota: 'Includes',
  remaining: '{remaining} left of {amount}',
  recurring: 'Renews every period',
  oneOff: 'One period',
  minutes: '{n} min',
  loading: 'Loading…',
  invalidTitle: 'This link is no longer valid',
  invalidBody: 'Links to this page expire. Ask your operator for a new one to see and buy plans.',
  unavailableTitle: 'The service is busy',
  unavailableBody:
    'This page could not be loaded right now. Nothing was charged. Please try again in a moment.',
  retry: 'Try again',
  networkError: 'The service could not be reached. Check your connection and try again.',
  genericError: 'Something went wrong. Please try again.',
  'error.INSUFFICIENT_FUNDS': 'Your balance is too low for this plan. Nothing was charged.',
  'error.SUBSCRIBER_INACTIVE': 'Your line is not active, so plans cannot be bought. Nothing was charged.',
  'error.OFFER_WITHDRAWN': 'This plan is no longer on offer. Nothing was charged.',
  'error.PLAN_LIMIT_REACHED': 'You already hold as many plans as your line allows. Nothing was charged.',
  'error.IDEMPOTENCY_KEY_REUSED': 'This purchase could not be completed. Please try again.',
  'error.IDEMPOTENCY_KEY_IN_USE': 'This purchase is still being processed. Please wait a moment.',
  'error.INVALID': 'This purchase could not be made. Nothing was charged.',
  poweredBy: 'Served securely by your operator.',
};

/** The keys of the portal's texts. */
export type MessageKey = keyof typeof EN;

/** One language's texts: every key, `{name}` placeholders filled in by {@link translate}. */
export type MessageTable = Record<MessageKey, string>;

const ES: MessageTable = {
  languageName: 'Español',
  languageLabel: 'Idioma',
  pageTitle: 'Planes para tu línea',
  greeting: 'Compra un plan mientras estás en itinerancia',
  number: 'Número',
  balance: 'Saldo',
  status: 'Estado de la línea',
  'status.ACTIVE': 'Activa',
  'status.INACTIVE': 'Inactiva',
  'status.SUSPENDED': 'Suspendida',
  offersHeading: 'Planes disponibles',
  plansHeading: 'Tus planes',
  noOffers: 'No hay planes disponibles en este momento.',
  noPlans: 'Todavía no tienes planes.',
  buy: 'Comprar',
  buyNamed: 'Comprar {name} por {price}',
  buying: 'Comprando…',
  bought: '{name} ya está activo.',
  price: 'Precio',
  quota: 'Incluye',
  remaining: 'Quedan {remaining} de {amount}',
  recurring: 'Se renueva cada periodo',
  oneOff: 'Un periodo',
  minutes: '{n} min',
  loading: 'Cargando…',
  invalidTitle: 'Este enlace ya no es válido',
  invalidBody: 'Los enlaces a esta página caducan. Pide uno nuevo a tu operador para ver y comprar planes.',
  unavailableTitle: 'El servicio está ocupado',
  unavailableBody:
    'No se ha podido cargar esta página ahora mismo. No se ha cobrado nada. Inténtalo de nuevo en un momento.',
  retry: 'Reintentar',
  networkError: 'No se pudo contactar con el servicio. Comprueba tu conexión e inténtalo de nuevo.',
  genericError: 'Algo salió mal. Inténtalo de nuevo.',
  'error.INSUFFICIENT_FUNDS': 'Tu saldo no alcanza para este plan. No se ha cobrado nada.',
  'error.SUBSCRIBER_INACTIVE':
    'Tu línea no está activa, así que no puedes comprar planes. No se ha cobrado nada.',
  'error.OFFER_WITHDRAWN': 'Este plan ya no está disponible. No se ha cobrado nada.',
  'error.PLAN_LIMIT_REACHED': 'Ya tienes tantos planes como permite tu línea. No se ha cobrado nada.',
  'error.IDEMPOTENCY_KEY_REUSED': 'No se pudo completar esta compra. Inténtalo de nuevo.',
  'error.IDEMPOTENCY_KEY_IN_USE': 'Esta compra todavía se está procesando. Espera un momento.',
  'error.INVALID': 'No se pudo realizar esta compra. No se ha cobrado nada.',
  poweredBy: 'Servido de forma segura por tu operador.',
};

const PT: MessageTable = {
  languageName: 'Português',
  languageLabel: 'Idioma',
  pageTitle: 'Planos para a sua linha',
  greeting: 'Compre um plano enquanto está em roaming',
  number: 'Número',
  balance: 'Saldo',
  status: 'Estado da linha',
  'status.ACTIVE': 'Ativa',
  'status.INACTIVE': 'Inativa',
  'status.SUSPENDED': 'Suspensa',
  offersHeading: 'Planos disponíveis',
  plansHeading: 'Os seus planos',
  noOffers: 'Não há planos disponíveis de momento.',
  noPlans: 'Ainda não tem planos.',
  buy: 'Comprar',
  buyNamed: 'Comprar {name} por {price}',
  buying: 'A comprar…',
  bought: '{name} já está ativo.',
  price: 'Preço',
  quota: 'Inclui',
  remaining: 'Restam {remaining} de {amount}',
  recurring: 'Renova-se a cada período',
  oneOff: 'Um período',
  minutes: '{n} min',
  loading: 'A carregar…',
  invalidTitle: 'Esta ligação já não é válida',
  invalidBody:
    'As ligações para esta página expiram. Peça uma nova ao seu operador para ver e comprar planos.',
  unavailableTitle: 'O serviço está ocupado',
  unavailableBody:
    'Não foi possível carregar esta página neste momento. Nada foi cobrado. Tente novamente daqui a pouco.',
  retry: 'Tentar novamente',
  networkError: 'Não foi possível contactar o serviço. Verifique a sua ligação e tente novamente.',
  genericError: 'Algo correu mal. Tente novamente.',
  'error.INSUFFICIENT_FUNDS': 'O seu saldo não chega para este plano. Nada foi cobrado.',
  'error.SUBSCRIBER_INACTIVE':
    'A sua linha não está ativa, por isso não pode comprar planos. Nada foi cobrado.',
  'error.OFFER_WITHDRAWN': 'Este plano já não está disponível. Nada foi cobrado.',
  'error.PLAN_LIMIT_REACHED': 'Já tem tantos planos quantos a sua linha permite. Nada foi cobrado.',
  'error.IDEMPOTENCY_KEY_REUSED': 'Não foi possível concluir esta compra. Tente novamente.',
  'error.IDEMPOTENCY_KEY_IN_USE': 'Esta compra ainda está a ser processada. Aguarde um momento.',
  'error.INVALID': 'Não foi possível efetuar esta compra. Nada foi cobrado.',
  poweredBy: 'Servido de forma segura pelo seu operador.',
};

/** The portal's texts per language (every table has every key: test/unit/portal-i18n.test.ts). */
export const MESSAGES: Record<PortalLanguage, MessageTable> = { en: EN, es: ES, pt: PT };

/** Whether `value` is a language the portal speaks. */
export function isPortalLanguage(value: unknown): value is PortalLanguage {
  return typeof value === 'string' && (PORTAL_LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language of a portal page: `?lang=` when it names one of {@link PORTAL_LANGUAGES} (the
 * switcher's choice, carried in the URL rather than a cookie), else the best of them by the
 * `Accept-Language` header (`pt-BR` is `pt`), else {@link DEFAULT_LANGUAGE}.
 */
export function chooseLanguage(query: unknown, acceptLanguage: string | undefined): PortalLanguage {
  const asked = typeof query === 'string' ? query.toLowerCase() : undefined;
  if (isPortalLanguage(asked)) return asked;
  if (!acceptLanguage) return DEFAULT_LANGUAGE;
  // Negotiator matches a region tag (es-MX) to its primary language (es) and honours q-values.
  const best = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language([
    ...PORTAL_LANGUAGES,
  ]);
  return isPortalLanguage(best) ? best : DEFAULT_LANGUAGE;
}

/** The text `key` in `lang` with each `{name}` replaced by `params.name` (unknown names are left as they are). */
export function translate(
  lang: PortalLanguage,
  key: MessageKey,
  params: Record<string, string | number> = {},
): string {
  return MESSAGES[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}
