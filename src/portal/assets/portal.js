/*
 * The captive portal's page script (served as /portal/assets/portal.js; plain browser JavaScript,
 * no build step, no third-party request). It reads the access token from the page's URL (the last
 * path segment), its texts from the #portal-config data block, and talks to POST /graphql with
 * `authorization: Bearer <token>`: `me` for the masked number, balance, offers and own plans, and
 * `purchasePlan` with one idempotency key per purchase attempt (reused when the same attempt is
 * sent again after a network failure), so a double click or a retry charges once.
 */
/* global document, window */
(function () {
  'use strict';

  var config = JSON.parse(document.getElementById('portal-config').textContent);
  var lang = config.lang;
  var messages = config.messages;
  var segments = window.location.pathname.split('/').filter(function (s) {
    return s !== '';
  });
  var token = decodeURIComponent(segments[segments.length - 1] || '');

  var PAGE = 100;
  var ME_QUERY =
    'query PortalMe { me { maskedMsisdn balance currency status ' +
    'offers(first: ' +
    PAGE +
    ') { edges { node { id planDefinitionId name unitMeteringType unitAmount price currency recurring } } } ' +
    'plans(first: ' +
    PAGE +
    ') { edges { node { id planId name unitMeteringType unitAmount remaining period renewed } } } } }';
  var PURCHASE_MUTATION =
    'mutation PortalPurchase($input: PurchasePlanInput!) { purchasePlan(input: $input) { ' +
    'plan { id planId name } balance userErrors { code message } } }';
  /** Sends of one purchase attempt at most, all with its key (after a network failure or IDEMPOTENCY_KEY_IN_USE). */
  var SEND_TRIES = 4;
  /** Milliseconds between two sends of one attempt. */
  var RETRY_MS = 500;

  /** The subscriber's currency, from the last `me` answer (credit plans are counted in its minor units). */
  var currency = null;
  /** planDefinitionId → the idempotency key of a purchase attempt whose outcome is unknown (network failure). */
  var pendingKeys = {};
  var purchasing = false;

  function t(key, params) {
    var text = messages[key] || messages.genericError;
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return params && Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole;
    });
  }

  function el(id) {
    return document.getElementById(id);
  }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- formatting (exact decimal strings go to Intl as strings: no binary float on money) ----

  function formatMoney(amount, code) {
    try {
      return new Intl.NumberFormat(lang, { style: 'currency', currency: code }).format(amount);
    } catch {
      return amount + ' ' + code;
    }
  }

  function formatNumber(n, maxFraction) {
    return new Intl.NumberFormat(lang, { maximumFractionDigits: maxFraction }).format(n);
  }

  /** Minor currency units (an integer) as the decimal string of the currency. */
  function minorToDecimal(minor, code) {
    var digits;
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
        .maximumFractionDigits;
    } catch {
      digits = 2;
    }
    var negative = minor < 0;
    var s = String(Math.abs(minor));
    if (digits === 0) return (negative ? '-' : '') + s;
    while (s.length <= digits) s = '0' + s;
    return (negative ? '-' : '') + s.slice(0, s.length - digits) + '.' + s.slice(s.length - digits);
  }

  /** A quota in its plan's unit (bytes, seconds or minor currency units) in human units. */
  function formatQuota(amount, unit) {
    if (unit === 'VOLUME') {
      if (amount >= 1e9) return formatNumber(amount / 1e9, 2) + ' GB';
      return formatNumber(amount / 1e6, amount >= 1e6 ? 0 : 2) + ' MB';
    }
    if (unit === 'TIME') return t('minutes', { n: formatNumber(amount / 60, amount % 60 === 0 ? 0 : 1) });
    if (unit === 'CREDIT' && currency) return formatMoney(minorToDecimal(amount, currency), currency);
    return formatNumber(amount, 0);
  }

  // ---- GraphQL ----

  function Unauthenticated() {}
  function NetworkFailure() {}

  /** POST /graphql; resolves the `data`, rejects Unauthenticated, NetworkFailure or an Error. */
  function graphql(query, variables) {
    return fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
      body: JSON.stringify({ query: query, variables: variables || {} }),
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    }).then(
      function (res) {
        if (res.status === 401) throw new Unauthenticated();
        if (res.status >= 500) throw new NetworkFailure();
        return res.json().then(function (body) {
          var errors = body.errors || [];
          for (var i = 0; i < errors.length; i++) {
            var code = errors[i].extensions && errors[i].extensions.code;
            if (code === 'UNAUTHENTICATED') throw new Unauthenticated();
          }
          if (errors.length || !body.data) throw new Error(errors.length ? errors[0].message : 'no data');
          return body.data;
        });
      },
      function () {
        throw new NetworkFailure();
      },
    );
  }

  // ---- views ----

  function notify(text, kind) {
    var notice = el('notice');
    notice.textContent = text;
    notice.className = 'notice' + (kind ? ' notice-' + kind : '');
    notice.hidden = !text;
  }

  function showInvalidLink() {
    var main = el('main');
    while (main.firstChild) main.removeChild(main.firstChild);
    main.appendChild(make('h1', '', t('invalidTitle')));
    main.appendChild(make('p', '', t('invalidBody')));
    document.title = t('invalidTitle');
  }

  function failed(err) {
    if (err instanceof Unauthenticated) showInvalidLink();
    else if (err instanceof NetworkFailure) notify(t('networkError'), 'error');
    else notify(t('genericError'), 'error');
  }

  function offerCard(offer) {
    var li = make('li', 'card offer');
    li.appendChild(make('h3', '', offer.name));
    var facts = make('p', 'facts');
    facts.appendChild(make('span', 'quota', formatQuota(offer.unitAmount, offer.unitMeteringType)));
    facts.appendChild(make('span', 'kind', offer.recurring ? t('recurring') : t('oneOff')));
    li.appendChild(facts);
    var price = formatMoney(offer.price, offer.currency);
    li.appendChild(make('p', 'price', price));
    var button = make('button', 'buy', t('buy'));
    button.type = 'button';
    button.setAttribute('aria-label', t('buyNamed', { name: offer.name, price: price }));
    button.setAttribute('data-plan-definition-id', String(offer.planDefinitionId));
    button.disabled = purchasing;
    button.addEventListener('click', function () {
      purchase(offer, button);
    });
    li.appendChild(button);
    return li;
  }

  function planCard(plan) {
    var li = make('li', 'card plan');
    li.setAttribute('data-plan-id', String(plan.planId));
    li.appendChild(make('h3', '', plan.name));
    li.appendChild(
      make(
        'p',
        'remaining',
        t('remaining', {
          remaining: formatQuota(plan.remaining, plan.unitMeteringType),
          amount: formatQuota(plan.unitAmount, plan.unitMeteringType),
        }),
      ),
    );
    var meter = make('progress', 'meter');
    meter.max = Math.max(plan.unitAmount, 1);
    meter.value = Math.min(plan.remaining, plan.unitAmount);
    meter.setAttribute('aria-label', plan.name);
    li.appendChild(meter);
    return li;
  }

  function fillList(listId, sectionId, items, render, emptyText) {
    var list = el(listId);
    while (list.firstChild) list.removeChild(list.firstChild);
    if (items.length === 0) list.appendChild(make('li', 'empty', emptyText));
    items.forEach(function (item) {
      list.appendChild(render(item));
    });
    el(sectionId).hidden = false;
  }

  function nodes(connection) {
    return ((connection && connection.edges) || []).map(function (edge) {
      return edge.node;
    });
  }

  function render(me) {
    currency = me.currency;
    el('msisdn').textContent = me.maskedMsisdn;
    el('balance').textContent = formatMoney(me.balance, me.currency);
    el('status').textContent = t('status.' + me.status);
    el('account').hidden = false;
    fillList('offers', 'offers-section', nodes(me.offers), offerCard, t('noOffers'));
    fillList('plans', 'plans-section', nodes(me.plans), planCard, t('noPlans'));
  }

  function load() {
    return graphql(ME_QUERY).then(function (data) {
      render(data.me);
    });
  }

  // ---- buying ----

  function setBuying(on) {
    purchasing = on;
    var buttons = document.querySelectorAll('button.buy');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = on;
  }

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === 'function') return window.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return (b + 0x100).toString(16).slice(1);
      })
      .join('');
  }

  /** Waits `ms` milliseconds. */
  function pause(ms) {
    return new Promise(function (resolve) {
      setTimeout(resolve, ms);
    });
  }

  /** The first refusal code of a purchasePlan payload, or null. */
  function refusalOf(data) {
    var errors = data.purchasePlan.userErrors;
    return errors && errors.length ? errors[0].code : null;
  }

  /**
   * Sends one purchase attempt, and sends it again with the same key (up to SEND_TRIES times in
   * all) after a network failure, or while the gateway answers IDEMPOTENCY_KEY_IN_USE (the first
   * send of the attempt is still running: the same key then answers its result).
   */
  function send(input, triesLeft) {
    return graphql(PURCHASE_MUTATION, { input: input }).then(
      function (data) {
        if (refusalOf(data) !== 'IDEMPOTENCY_KEY_IN_USE' || triesLeft <= 1) return data;
        return pause(RETRY_MS).then(function () {
          return send(input, triesLeft - 1);
        });
      },
      function (err) {
        if (!(err instanceof NetworkFailure) || triesLeft <= 1) throw err;
        return pause(RETRY_MS).then(function () {
          return send(input, triesLeft - 1);
        });
      },
    );
  }

  function purchase(offer, button) {
    if (purchasing) return;
    setBuying(true);
    button.textContent = t('buying');
    notify(t('buying'), '');
    var id = offer.planDefinitionId;
    // One key per purchase attempt; an attempt whose outcome stayed unknown is sent again with its key.
    var key = pendingKeys[id] || newKey();
    pendingKeys[id] = key;
    send({ planDefinitionId: id, idempotencyKey: key }, SEND_TRIES)
      .then(function (data) {
        var payload = data.purchasePlan;
        var refusal = refusalOf(data);
        // Still running after every try: the attempt keeps its key, so the next click asks again for its result.
        if (refusal !== 'IDEMPOTENCY_KEY_IN_USE') delete pendingKeys[id];
        if (refusal) {
          notify(t('error.' + refusal), 'error');
          return;
        }
        return load().then(function () {
          notify(t('bought', { name: (payload.plan && payload.plan.name) || offer.name }), 'success');
        });
      })
      .catch(function (err) {
        if (!(err instanceof NetworkFailure)) delete pendingKeys[id];
        failed(err);
      })
      .then(function () {
        button.textContent = t('buy');
        setBuying(false);
      });
  }

  load().then(function () {
    notify('', '');
  }, failed);
})();
